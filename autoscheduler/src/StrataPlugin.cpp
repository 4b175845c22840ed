// The "Strata" autoscheduler plugin: registers itself with Halide when the
// module is loaded (generator `-p libautoschedule_strata.so -s Strata`, or
// add_halide_library(... AUTOSCHEDULER Strata::Strata)).
#include "Autoscheduler.h"

namespace {

void strata_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                         const Halide::MachineParams &, Halide::AutoSchedulerResults *results) {
    using namespace strata::autoscheduler;
    autoschedule(pipeline, target, Params::from_environment(), results);
}

struct RegisterStrata {
    RegisterStrata() { Halide::Pipeline::add_autoscheduler("Strata", strata_autoschedule); }
} register_strata;

}  // namespace
