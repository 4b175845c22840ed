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
// Every key but `inner`, `report` and `lowered_check` (see Params.h) goes to
// the inner autoscheduler as it is; Strata's own settings for the prediction
// come from the environment. With `-e featurization` the generator also
// writes the schedule's features, to log its measurements for training.
#include "Autoscheduler.h"
#include "Errors.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <optional>
#include <stdexcept>

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
    // Strata's own settings come from the environment; lowered_check is Strata's, not the inner's.
    Params strata_params = Params::resolve();
    if (auto check = inner_keys.find("lowered_check"); check != inner_keys.end()) {
        strata_params.lowered_check = check->second;
        inner_keys.erase(check);
    }
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point start) {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    nlohmann::json report = {{"scheduler", inner}};
    auto write_report = [&] {
        std::ofstream out(report_path);
        out << report.dump(1) << "\n";
        if (!out) fail("StrataPredict cannot write its report to '" + report_path + "'");
    };
    // The features of the inner schedule belong with the pipeline as written: read it first.
    std::optional<FeaturizationRequest> featurize;
    try {
        featurize = FeaturizationRequest{results, unscheduled_pipeline_identity(pipeline)};
    } catch (...) {
        report["predict_error"] = current_exception_message();  // the inner scheduler reports its own
    }
    const auto schedule_start = Clock::now();
    try {
        *results = pipeline.apply_autoscheduler(target, Halide::AutoschedulerParams(inner, inner_keys));
    } catch (...) {
        report["schedule_seconds"] = seconds_since(schedule_start);
        report["error"] = current_exception_message();
        write_report();
        throw;
    }
    report["schedule_seconds"] = seconds_since(schedule_start);
    const auto predict_start = Clock::now();
    try {
        if (!featurize) throw std::runtime_error(report["predict_error"].get<std::string>());
        const PredictionReport prediction =
            predict_existing_schedule(pipeline, target, strata_params, &*featurize);
        report["gpu"] = prediction.gpu;
        report["predicted_seconds"] = prediction.predicted_seconds;
        report["stages"] = prediction.funcs;
        report["kernels"] = prediction.kernels;
        report["approximations"] = prediction.approximations;
        if (!prediction.why_illegal.empty()) report["illegal"] = prediction.why_illegal;
    } catch (...) {
        // The inner schedule stands; only Strata's reading of it failed.
        report["predict_error"] = current_exception_message();
        warn("StrataPredict could not price " + inner + "'s schedule: " + report["predict_error"].get<std::string>());
    }
    report["predict_seconds"] = seconds_since(predict_start);
    write_report();
}

struct RegisterStrata {
    RegisterStrata() {
        Halide::Pipeline::add_autoscheduler("Strata", strata_autoschedule);
        Halide::Pipeline::add_autoscheduler("StrataPredict", strata_predict);
    }
} register_strata;

}  // namespace
