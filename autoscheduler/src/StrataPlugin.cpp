// The "Strata" autoscheduler plugin: registers itself with Halide when the
// module is loaded, from a generator command line
//   generator ... -p libautoschedule_strata.so autoscheduler=Strata autoscheduler.beam_size=8
// from CMake (add_halide_library(... AUTOSCHEDULER Strata::Strata)), or
// in-process (Halide::load_plugin, then Pipeline::apply_autoscheduler).
// Strata's keys and their precedence are in Params.h.
//
// It also registers "StrataPredict", a measuring aid: it runs another
// autoscheduler, keeps that schedule, and writes to a JSON file how long
// that autoscheduler took and Strata's predicted run time of its schedule
// (and how long predicting took), for scripts/bench-compile:
//   generator ... -p libautoschedule_li2018.so,libautoschedule_strata.so autoscheduler=StrataPredict
//       autoscheduler.inner=Li2018 autoscheduler.report=prediction.json [inner keys...]
// Every key but `inner` and `report` goes to the inner autoscheduler as it
// is; Strata's own settings for the prediction come from the environment.
#include "Autoscheduler.h"
#include "Errors.h"

#include <chrono>
#include <fstream>

namespace {

using strata::autoscheduler::Params;

void strata_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                         const Halide::AutoschedulerParams &params, Halide::AutoSchedulerResults *results) {
    strata::autoscheduler::autoschedule(pipeline, target, Params::resolve(params.extra), results);
}

std::string take_required_key(std::map<std::string, std::string> &keys, const std::string &key,
                              const std::string &meaning) {
    auto it = keys.find(key);
    if (it == keys.end() || it->second.empty()) {
        strata::autoscheduler::fail("StrataPredict needs autoscheduler." + key + " (" + meaning + ")");
    }
    std::string value = it->second;
    keys.erase(it);
    return value;
}

void strata_predict(const Halide::Pipeline &pipeline, const Halide::Target &target,
                    const Halide::AutoschedulerParams &params, Halide::AutoSchedulerResults *results) {
    using namespace strata::autoscheduler;
    std::map<std::string, std::string> inner_keys = params.extra;
    const std::string inner = take_required_key(inner_keys, "inner", "the autoscheduler whose schedule to price");
    const std::string report_path = take_required_key(inner_keys, "report", "the JSON file to write");
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point start) {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    const auto schedule_start = Clock::now();
    *results = pipeline.apply_autoscheduler(target, Halide::AutoschedulerParams(inner, inner_keys));
    const double schedule_seconds = seconds_since(schedule_start);
    const auto predict_start = Clock::now();
    const PredictionReport report = predict_existing_schedule(pipeline, target, Params::resolve());
    const double predict_seconds = seconds_since(predict_start);
    std::ofstream out(report_path);
    out << "{\"scheduler\": \"" << inner << "\", \"gpu\": \"" << report.gpu
        << "\", \"predicted_seconds\": " << report.predicted_seconds << ", \"kernels\": " << report.kernels
        << ", \"approximations\": " << report.approximations.size() << ", \"schedule_seconds\": " << schedule_seconds
        << ", \"predict_seconds\": " << predict_seconds << "}\n";
    if (!out) fail("StrataPredict cannot write its report to '" + report_path + "'");
}

struct RegisterStrata {
    RegisterStrata() {
        Halide::Pipeline::add_autoscheduler("Strata", strata_autoschedule);
        Halide::Pipeline::add_autoscheduler("StrataPredict", strata_predict);
    }
} register_strata;

}  // namespace
