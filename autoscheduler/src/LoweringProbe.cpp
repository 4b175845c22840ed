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

namespace strata::autoscheduler {

namespace {

struct LoweringFinished {};

class StopAfterLowering : public Halide::Internal::IRMutator {
public:
    using IRMutator::mutate;
    Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &) override { throw LoweringFinished{}; }
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

}  // namespace

std::optional<std::string> lowering_error(const std::vector<Halide::Func> &outputs, const Halide::Target &target) {
    Halide::Pipeline probe(outputs);
    probe.add_custom_lowering_pass(new StopAfterLowering);
    try {
        probe.compile_to_module(probe.infer_arguments(), "strata_lowering_probe", target);
    } catch (const LoweringFinished &) {
        return std::nullopt;
    } catch (const Halide::Error &e) {
        return std::string(e.what());
    }
    return std::nullopt;
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
