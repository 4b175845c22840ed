// The "Strata" autoscheduler plugin: registers itself with Halide when the
// module is loaded (generator `-p libautoschedule_strata.so -s Strata`, or
// add_halide_library(... AUTOSCHEDULER Strata::Strata)).
//
// It also registers "StrataPredict", a measuring aid: it runs the
// autoscheduler named by STRATA_PREDICT_AFTER (e.g. Li2018, loaded too),
// keeps that schedule, and writes Strata's predicted run time of it to the
// JSON file STRATA_PREDICT_REPORT (used by scripts/bench-compile).
#include "Autoscheduler.h"

#include <cstdlib>
#include <fstream>

namespace {

void strata_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                         const Halide::MachineParams &, Halide::AutoSchedulerResults *results) {
    using namespace strata::autoscheduler;
    autoschedule(pipeline, target, Params::from_environment(), results);
}

void strata_predict(const Halide::Pipeline &pipeline, const Halide::Target &target,
                    const Halide::MachineParams &machine_params, Halide::AutoSchedulerResults *results) {
    using namespace strata::autoscheduler;
    const char *inner = std::getenv("STRATA_PREDICT_AFTER");
    const char *report_path = std::getenv("STRATA_PREDICT_REPORT");
    if (!inner || !*inner || !report_path || !*report_path) {
        throw Halide::CompileError("StrataPredict needs STRATA_PREDICT_AFTER (an autoscheduler's name) and "
                                   "STRATA_PREDICT_REPORT (a JSON file to write)\n");
    }
    Halide::Pipeline scheduled = pipeline;
    *results = scheduled.auto_schedule(inner, target, machine_params);
    const PredictionReport report = predict_existing_schedule(pipeline, target, Params::from_environment());
    std::ofstream out(report_path);
    out << "{\"scheduler\": \"" << inner << "\", \"gpu\": \"" << report.gpu
        << "\", \"predicted_seconds\": " << report.predicted_seconds << ", \"kernels\": " << report.kernels
        << ", \"approximations\": " << report.approximations.size() << "}\n";
}

struct RegisterStrata {
    RegisterStrata() {
        Halide::Pipeline::add_autoscheduler("Strata", strata_autoschedule);
        Halide::Pipeline::add_autoscheduler("StrataPredict", strata_predict);
    }
} register_strata;

}  // namespace
