// Autoscheduler: the Strata entry point behind the "Strata" plugin — checks
// the target, picks the GPU spec and cost model, analyses the pipeline,
// searches, applies the best schedule to the Funcs, and fills Halide's
// AutoSchedulerResults (schedule source and featurization).
//
// Example (in-process, with the plugin loaded or linked):
//   Halide::Pipeline p(output);
//   Halide::AutoSchedulerResults r = p.apply_autoscheduler(Halide::Target("host-cuda"), {"Strata", {}});
#pragma once

#include "CodeSize.h"
#include "Params.h"

#include "strata/costmodel/CostModel.h"
#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/GpuSpec.h"

#include "Halide.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata::autoscheduler {

// The GPU the schedule is for: Params::gpu_spec_file, else Params::gpu, else
// the CUDA capability of the target, else the default.
costmodel::GpuSpec select_gpu_spec(const Params &params, const Halide::Target &target);

// The spec the search schedules within: `spec` with Strata's own limits
// (Params::max_threads_per_block) applied. Prices of other schedulers'
// schedules use the GPU's own limits.
costmodel::GpuSpec search_limits(const costmodel::GpuSpec &spec, const Params &params);

// The learned model with Params::weights, else the default (STRATA_WEIGHTS,
// else the shipped weights, which are the pure analytic model).
std::unique_ptr<costmodel::CostModel> select_cost_model(const Params &params, const costmodel::GpuSpec &spec);

// Fails with a clear message unless the target has a GPU feature.
void require_gpu_target(const Halide::Target &target);

struct AutoscheduleReport {
    // Set when the search or applying its result failed and the pipeline got
    // the default schedule instead; the reason is the failure's message.
    bool fell_back = false;
    std::string fallback_reason;
    std::string gpu;
    std::string cost_model;
    double predicted_seconds = 0;
    double search_seconds = 0;  // the whole call
    // Its two large parts: the beam search, and lowering the answer with
    // Halide to find what Halide rejects (LoweringProbe), once per round.
    double beam_search_seconds = 0;
    double lowering_probe_seconds = 0;
    int lowering_probes = 0;
    // The search's finalists (one per beam width that improved its answer)
    // and how many of them were lowered and repaired within the probes'
    // budget (Params::finalist_probe_ms).
    int finalists = 0;
    int finalists_tried = 0;
    // What the code-size pass changed in the schedule returned (CodeSize.h).
    CodeSizeChanges code_size;
    int funcs = 0;
    int kernels = 0;
    int64_t evaluations = 0;
};

struct PredictionReport {
    int funcs = 0;
    std::string gpu;
    std::string cost_model;
    double predicted_seconds = 0;  // infinity where the model finds the schedule cannot run
    std::string why_illegal;       // then, the first reason
    int kernels = 0;
    std::vector<std::string> approximations;
};

// The identity (name, hashes with and without sizes) that Strata's
// featurizations give this pipeline. Read it before anything schedules the
// pipeline: the DAG of a scheduled pipeline describes differently.
costmodel::ScheduleIdentity unscheduled_pipeline_identity(const Halide::Pipeline &pipeline);

// Another autoscheduler's results to fill with the features of its
// schedule, and the pipeline's identity read before it ran.
struct FeaturizationRequest {
    Halide::AutoSchedulerResults *results;  // schedule_source set; featurization filled
    costmodel::ScheduleIdentity identity;   // unscheduled_pipeline_identity()
};

// Strata's prediction for the schedule the pipeline's Funcs carry now (by
// hand, or from another autoscheduler), read with import_schedule(). With a
// request it also writes that schedule's featurization, with the identity
// Strata's own schedules of the pipeline carry, so that measurements of both
// rank against each other in training.
PredictionReport predict_existing_schedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                           const Params &params, const FeaturizationRequest *featurize = nullptr);

// Faults only tests inject, to reach paths that small pipelines seldom take.
struct InjectedFaults {
    // Called between the search and applying its result; whatever it throws
    // is handled as a failure of the search (the fallback path, with a real
    // Halide error).
    std::function<void()> after_search;
    // Asked after each lowering probe that Halide passed, with the names of
    // the Funcs computed inside other Funcs' kernels: a message naming those
    // a stricter Halide would reject, or nothing (repairs, and the budget of
    // the finalists' probes).
    std::function<std::optional<std::string>(const std::set<std::string> &members)> rejection;
};

// Schedules the pipeline in place and fills `results`.
AutoscheduleReport autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                const Params &params, Halide::AutoSchedulerResults *results,
                                const InjectedFaults &faults = {});

}  // namespace strata::autoscheduler
