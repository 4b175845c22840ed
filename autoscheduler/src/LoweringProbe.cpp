//===- LoweringProbe.cpp - lowering a schedule to see if Halide takes it --===//
//
// A custom lowering pass runs after all of Halide's own passes and before
// GPU code generation; the probe's pass stops lowering there by throwing, so
// a probe costs Halide's lowering only. The lowering happens on a fresh
// Pipeline over the same Funcs: schedules live in the Funcs, custom passes
// in the Pipeline, so the user's passes (and a lowered-code check) neither
// run nor get removed. Before the probe reads what the kernels still check,
// the storage checks that hold at every tile position are taken out, as
// drop_proven_storage_checks() takes them out of the user's compiled code.
//===----------------------------------------------------------------------===//
#include "LoweringProbe.h"

#include "ResidueProof.h"

#include <cctype>
#include <set>
#include <vector>

namespace strata::autoscheduler {

namespace {

bool is_gpu_loop(const Halide::Internal::For *op) {
    return op->for_type == Halide::Internal::ForType::GPUBlock ||
           op->for_type == Halide::Internal::ForType::GPUThread || op->for_type == Halide::Internal::ForType::GPULane;
}

// The Func and message of a storage-bound check (bound_storage's, or an
// explicit bound's), or nothing for any other assertion.
std::optional<std::string> checked_storage(const Halide::Internal::AssertStmt *op) {
    const auto *call = op->message.as<Halide::Internal::Call>();
    if (!call || call->name.find("bound") == std::string::npos || call->args.empty()) return std::nullopt;
    const auto *name = call->args[0].as<Halide::Internal::StringImm>();
    if (!name) return std::nullopt;
    return name->value + " (" + call->name + ")";
}

// The lowered Stmt without the storage checks inside GPU kernels that hold
// for every tile, whatever its position. Halide states a member's realized
// extent through the kernel's lets, from the tile's base (a split loop's
// `.base` let, shifted inwards at the last tile) and, inlined, copies of the
// base's own value; it cannot prove the bound where the region is read
// through divisions, as the extent then depends on the base's residue
// (interpolate's pyramid levels, read through two divisions by 2 from a
// tile that starts at the output's unknown min). With the kernel's other
// lets substituted and each copy of a base's value put back as the base,
// the check depends on the bases alone: proved at every residue of them
// (holds_at_every_residue), it holds at any tile position, and the check,
// which the OpenCL back end drops with a warning and the CUDA one turns
// into a trap, goes.
class ProvenStorageChecksDropped : public Halide::Internal::IRMutator {
    using IRMutator::visit;
    int gpu_depth_ = 0;
    // The LetStmts around the node visited, outermost first, and where the
    // current kernel's own begin.
    std::vector<std::pair<std::string, Halide::Expr>> lets_;
    size_t kernel_lets_ = 0;

    Halide::Internal::Stmt visit(const Halide::Internal::For *op) override {
        const bool gpu = is_gpu_loop(op);
        const size_t outer_kernel_lets = kernel_lets_;
        if (gpu && gpu_depth_ == 0) kernel_lets_ = lets_.size();
        gpu_depth_ += gpu;
        Halide::Internal::Stmt out = IRMutator::visit(op);
        gpu_depth_ -= gpu;
        kernel_lets_ = outer_kernel_lets;
        return out;
    }

    Halide::Internal::Stmt visit(const Halide::Internal::LetStmt *op) override {
        lets_.emplace_back(op->name, op->value);
        Halide::Internal::Stmt body = mutate(op->body);
        lets_.pop_back();
        return body.same_as(op->body) ? Halide::Internal::Stmt(op)
                                      : Halide::Internal::LetStmt::make(op->name, op->value, body);
    }

    Halide::Internal::Stmt visit(const Halide::Internal::AssertStmt *op) override {
        if (gpu_depth_ > 0 && checked_storage(op) && holds_for_every_tile(op->condition)) {
            return Halide::Internal::Evaluate::make(0);
        }
        return op;
    }

    bool holds_for_every_tile(const Halide::Expr &condition) const {
        // "f.s0.y.yi.base", or renamed by a simplification "...base.s".
        auto is_base = [](std::string name) {
            while (name.size() > 2 && name.compare(name.size() - 2, 2, ".s") == 0) name.resize(name.size() - 2);
            return name.size() > 5 && name.compare(name.size() - 5, 5, ".base") == 0;
        };
        // Innermost first: a let's value names only lets outside it, so one
        // pass expands them all, and reaches a base after every copy of its
        // value that the lets inside it brought in.
        Halide::Expr check = condition;
        for (size_t i = lets_.size(); i-- > kernel_lets_;) {
            const auto &[name, value] = lets_[i];
            if (is_base(name)) {
                check = Halide::Internal::substitute(value, Halide::Internal::Variable::make(value.type(), name),
                                                     check);
            } else if (Halide::Internal::expr_uses_var(check, name)) {
                check = Halide::Internal::graph_substitute(name, value, check);
            }
        }
        return holds_at_every_residue(check);
    }
};

// What the lowered Stmt still checks inside GPU kernels, and what it
// computes. A storage bound left to a check inside a kernel is one the
// kernel may overrun (ProvenStorageChecksDropped has taken out the ones
// that hold). The messages name the Func.
class LoweredFacts : public Halide::Internal::IRVisitor {
public:
    std::vector<std::string> funcs;
    std::set<std::string> produced;

private:
    using IRVisitor::visit;
    int gpu_depth_ = 0;

    void visit(const Halide::Internal::For *op) override {
        const bool gpu = is_gpu_loop(op);
        gpu_depth_ += gpu;
        IRVisitor::visit(op);
        gpu_depth_ -= gpu;
    }

    void visit(const Halide::Internal::AssertStmt *op) override {
        if (gpu_depth_ > 0) {
            if (std::optional<std::string> checked = checked_storage(op)) funcs.push_back(*checked);
        }
        IRVisitor::visit(op);
    }

    void visit(const Halide::Internal::ProducerConsumer *op) override {
        if (op->is_producer) produced.insert(op->name);
        IRVisitor::visit(op);
    }
};

// Thrown by the probe's pass, which ends lowering before code generation.
struct LoweringFinished {
    std::vector<std::string> unproven_bounds;
    std::set<std::string> produced;
};

class StopAfterLowering : public Halide::Internal::IRMutator {
public:
    using IRMutator::mutate;
    Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &s) override {
        LoweredFacts facts;
        ProvenStorageChecksDropped().mutate(s).accept(&facts);
        throw LoweringFinished{facts.funcs, facts.produced};
    }
};

// Whether an extern stage of the pipeline runs on a device API it names
// (Halide refuses to lower it for a target without that API).
bool names_device_api(const std::vector<Halide::Func> &outputs) {
    std::vector<Halide::Internal::Function> functions;
    for (const Halide::Func &f : outputs) functions.push_back(f.function());
    for (const auto &[name, function] : Halide::Internal::build_environment(functions)) {
        if (!function.has_extern_definition()) continue;
        const Halide::DeviceAPI api = function.extern_function_device_api();
        if (api != Halide::DeviceAPI::Host && api != Halide::DeviceAPI::None && api != Halide::DeviceAPI::Default_GPU) {
            return true;
        }
    }
    return false;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

}  // namespace

std::optional<std::string> lowering_error(const std::vector<Halide::Func> &outputs, const Halide::Target &target) {
    Halide::Pipeline probe(outputs);
    probe.add_custom_lowering_pass(new StopAfterLowering);
    try {
        probe.compile_to_module(probe.infer_arguments(), "strata_lowering_probe", target);
    } catch (const LoweringFinished &finished) {
        // Halide's simplifier has been seen to prove a whole pipeline body
        // unreachable (every output's computation gone, the pipeline
        // returning success with its outputs unwritten): a schedule that
        // lowers to no code for an output is not one to return.
        for (const Halide::Func &f : outputs) {
            if (!finished.produced.count(f.name())) {
                return "Halide's lowering of this schedule computes nothing for output '" + f.name() +
                       "' (its whole computation was simplified away)";
            }
        }
        if (finished.unproven_bounds.empty()) return std::nullopt;
        std::string message = "storage bounds Halide cannot prove are checked inside GPU kernels, where a failed "
                              "check is dropped or traps:";
        for (const std::string &f : finished.unproven_bounds) message += " " + f;
        return message;
    } catch (const Halide::Error &e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

void drop_proven_storage_checks(const Halide::Pipeline &pipeline) {
    Halide::Pipeline shared = pipeline;  // a handle: the caller's pipeline gets the pass
    shared.add_custom_lowering_pass(new ProvenStorageChecksDropped);
}

Halide::Target probe_target(const Halide::Target &target, const std::vector<Halide::Func> &outputs,
                            bool user_schedules) {
    if (user_schedules || !target.has_feature(Halide::Target::CUDA) || names_device_api(outputs)) return target;
    Halide::Target out = target;
    for (int f = 0; f < Halide::Target::FeatureEnd; ++f) {
        const auto feature = static_cast<Halide::Target::Feature>(f);
        if (out.has_feature(feature) && Halide::Target::feature_to_name(feature).rfind("cuda", 0) == 0) {
            out = out.without_feature(feature);
        }
    }
    return out.with_feature(Halide::Target::OpenCL);
}

std::set<std::string> funcs_named_in(const std::string &message, const std::set<std::string> &candidates) {
    std::set<std::string> named;
    for (const std::string &name : candidates) {
        for (size_t at = message.find(name); at != std::string::npos; at = message.find(name, at + 1)) {
            const size_t end = at + name.size();
            const bool starts = at == 0 || !is_name_char(message[at - 1]);
            // "f" but not "f_x"; "f.s0.y" and "f.0" (a tuple element's buffer) name f too.
            const bool ends = end == message.size() || !is_name_char(message[end]);
            if (starts && ends) {
                named.insert(name);
                break;
            }
        }
    }
    return named;
}

}  // namespace strata::autoscheduler
