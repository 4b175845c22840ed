//===- LoweringProbe.cpp - lowering a schedule to see if Halide takes it --===//
//
// A custom lowering pass runs after all of Halide's own passes and before
// GPU code generation; the probe's pass stops lowering there by throwing, so
// a probe costs Halide's lowering only. The lowering happens on a fresh
// Pipeline over the same Funcs: schedules live in the Funcs, custom passes
// in the Pipeline, so the user's passes (and a lowered-code check) neither
// run nor get removed.
//===----------------------------------------------------------------------===//
#include "LoweringProbe.h"

#include <cctype>
#include <set>
#include <vector>

namespace strata::autoscheduler {

namespace {

// What the lowered Stmt still checks inside GPU kernels, and what it
// computes. A storage bound Halide could not prove leaves an assertion
// inside a kernel, which the OpenCL back end drops (with a warning) and the
// CUDA one turns into a trap: a bound the kernel may overrun. The messages
// name the Func.
class LoweredFacts : public Halide::Internal::IRVisitor {
public:
    std::vector<std::string> funcs;
    std::set<std::string> produced;

private:
    using IRVisitor::visit;
    int gpu_depth_ = 0;

    void visit(const Halide::Internal::For *op) override {
        const bool gpu = op->for_type == Halide::Internal::ForType::GPUBlock ||
                         op->for_type == Halide::Internal::ForType::GPUThread ||
                         op->for_type == Halide::Internal::ForType::GPULane;
        gpu_depth_ += gpu;
        IRVisitor::visit(op);
        gpu_depth_ -= gpu;
    }

    void visit(const Halide::Internal::AssertStmt *op) override {
        const auto *call = op->message.as<Halide::Internal::Call>();
        if (gpu_depth_ > 0 && call && call->name.find("bound") != std::string::npos && !call->args.empty()) {
            if (const auto *name = call->args[0].as<Halide::Internal::StringImm>()) {
                funcs.push_back(name->value + " (" + call->name + ")");
            }
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
        s.accept(&facts);
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
