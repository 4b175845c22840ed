//===- Autoscheduler.cpp - the Strata entry point --------------------------===//
//
// Target check → GPU spec → FunctionDAG → search → ScheduleWriter → results.
// Any failure to analyse or search a pipeline that Halide accepts falls back
// to the always-legal default schedule, with a warning naming the cause; a
// user error (missing estimate, non-GPU target) is reported, not hidden.
//===----------------------------------------------------------------------===//
#include "Autoscheduler.h"

#include "BeamSearch.h"
#include "Errors.h"
#include "Featurizer.h"
#include "FunctionDAG.h"
#include "LoweredCheck.h"
#include "ReductionFactoring.h"
#include "ScheduleImport.h"
#include "ScheduleSnapshot.h"
#include "Schedule.h"
#include "ScheduleWriter.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/DefaultCostModel.h"
#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/LearnedCostModel.h"

#include <chrono>
#include <optional>
#include <sstream>

namespace strata::autoscheduler {

using costmodel::GpuSpec;

void require_gpu_target(const Halide::Target &target) {
    if (!target.has_gpu_feature()) {
        fail("the target '" + target.to_string() +
             "' has no GPU feature; Strata makes GPU schedules only. Add one, e.g. target=host-cuda or "
             "host-opencl, or use a CPU autoscheduler for this target.");
    }
}

GpuSpec select_gpu_spec(const Params &params, const Halide::Target &target) {
    try {
        if (!params.gpu_spec_file.empty()) return GpuSpec::from_json_file(params.gpu_spec_file);
        if (!params.gpu.empty()) return GpuSpec::by_name(params.gpu);
    } catch (const std::exception &e) {
        fail(std::string("cannot select the GPU: ") + e.what());
    }
    if (target.has_feature(Halide::Target::CUDA)) {
        const int capability = target.get_cuda_capability_lower_bound();
        if (capability > 0) return GpuSpec::for_compute_capability(capability);
    }
    return GpuSpec::default_spec();
}

std::unique_ptr<costmodel::CostModel> select_cost_model(const Params &params, const GpuSpec &spec) {
    try {
        if (params.cost_model == "analytic") return std::make_unique<costmodel::AnalyticModel>(spec);
        if (!params.weights.empty()) {
            return std::make_unique<costmodel::LearnedCostModel>(spec, costmodel::Weights::read_file(params.weights),
                                                                 params.weights);
        }
        return costmodel::make_default_cost_model(spec);
    } catch (const std::exception &e) {
        fail(std::string("cannot load the cost model's weights: ") + e.what());
    }
}

namespace {

std::map<std::string, int> func_indices(const FunctionDAG &dag) {
    std::map<std::string, int> index;
    int i = 0;
    for (const Node *node : dag.funcs()) index[node->name] = i++;
    return index;
}

std::string pipeline_name(const FunctionDAG &dag) {
    std::string name;
    for (const Node *node : dag.funcs()) {
        if (node->is_output) name += (name.empty() ? "" : "+") + node->name;
    }
    return name;
}

}  // namespace

PredictionReport predict_existing_schedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                           const Params &params) {
    set_log_level(params.verbose);
    require_gpu_target(target);
    const GpuSpec spec = select_gpu_spec(params, target);
    const std::unique_ptr<costmodel::CostModel> model = select_cost_model(params, spec);
    FunctionDAG dag(pipeline.outputs());
    ImportedSchedule imported = import_schedule(dag, spec);
    BeamSearch pricing(dag, spec, *model, params);
    PredictionReport report;
    report.funcs = int(dag.funcs().size());
    report.gpu = spec.name;
    report.cost_model = model->describe();
    report.predicted_seconds = pricing.cost(imported.schedule);
    const ScheduleFeaturization features = pricing.featurize(imported.schedule);
    report.kernels = features.kernels;
    if (!params.lowered_check.empty()) {
        install_lowered_check(pipeline, priced_schedule(dag, imported.schedule, features), params.lowered_check);
    }
    report.approximations = std::move(imported.approximations);
    return report;
}

AutoscheduleReport autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                const Params &params, Halide::AutoSchedulerResults *results,
                                const SearchFaultInjector &inject_fault) {
    const auto start = std::chrono::steady_clock::now();
    set_log_level(params.verbose);
    require_gpu_target(target);
    const GpuSpec spec = select_gpu_spec(params, target);

    // Reductions too short for the GPU are factored first; the search then
    // sees their intermediates as ordinary Funcs.
    const FactoredReductions factored = factor_short_reductions(pipeline, spec, params);
    FunctionDAG dag(pipeline.outputs());
    log(3, "pipeline:\n" + dag.describe());

    const std::unique_ptr<costmodel::CostModel> model = select_cost_model(params, spec);

    // A pipeline Halide accepts always gets a schedule: if the search or
    // applying its result fails, the Funcs are reset and get the default.
    ScheduleSnapshot unscheduled(dag);
    BeamSearch search(dag, spec, *model, params);
    SearchResult result{Schedule(dag), 0, {}};
    std::optional<ScheduleWriter> writer;
    bool fell_back = false;
    std::string fallback_reason;
    try {
        result = search.run();
        if (inject_fault) inject_fault();
        writer.emplace(dag, result.schedule);
        writer->apply();
    } catch (...) {
        fell_back = true;
        fallback_reason = current_exception_message();
        warn("the search failed on this pipeline (" + fallback_reason +
             "); it gets the default schedule: pure Funcs inlined where cheap, every other Func its own kernel");
        unscheduled.restore();
        result = SearchResult{Schedule(dag), 0, {}};
        complete_with_defaults(result.schedule, spec);
        writer.emplace(dag, result.schedule);
        writer->apply();
        result.cost = search.cost(result.schedule);
    }

    AutoscheduleReport report;
    report.fell_back = fell_back;
    report.fallback_reason = fallback_reason;
    report.gpu = spec.name;
    report.cost_model = model->describe();
    report.predicted_seconds = result.cost;
    report.funcs = int(dag.funcs().size());
    report.evaluations = result.stats.candidates;
    report.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const ScheduleFeaturization features = search.featurize(result.schedule);
    report.kernels = features.kernels;
    if (!params.lowered_check.empty()) {
        install_lowered_check(pipeline, priced_schedule(dag, result.schedule, features), params.lowered_check);
    }
    if (results) {
        const std::string body = factored.source + writer->source(func_indices(dag));
        std::ostringstream source;
        source << "// Strata schedule for " << spec.name << " (" << report.kernels << " kernels, predicted "
               << result.cost * 1e3 << " ms by the " << model->describe() << "; seed " << params.seed << ", beam "
               << params.beam_size << ", passes " << params.passes << ")\n";
        source << body;
        results->schedule_source = source.str();
        costmodel::Featurization featurization{
            {pipeline_name(dag), costmodel::ContentHash::of_text(dag.describe()),
             costmodel::ContentHash::of_text(body)},
            features.stages};
        const std::string text = featurization.to_text();
        results->featurization.assign(text.begin(), text.end());
    }
    if (log_level() >= 3) {
        for (const Node *node : dag.funcs()) log(3, "  " + node->name + ": " + result.schedule.choice(node->id).describe());
    }
    std::ostringstream summary;
    summary << "scheduled " << report.funcs << " Funcs as " << report.kernels << " kernels for " << spec.name
            << ": predicted " << result.cost * 1e3 << " ms, " << result.stats.candidates << " candidates in "
            << report.search_seconds << " s";
    log(1, summary.str());
    const SearchStats &stats = result.stats;
    log(2, "search statistics: " + std::to_string(stats.candidates) + " candidates priced, " +
               std::to_string(stats.kernels_priced) + " kernels priced by the model (" +
               std::to_string(stats.kernel_cost_hits) + " prices reused), " + std::to_string(stats.kernels_featurized) +
               " kernels featurized (" + std::to_string(stats.kernel_feature_hits) + " reused), " +
               std::to_string(stats.free_funcs) + " Funcs free in phase 2");
    return report;
}

}  // namespace strata::autoscheduler
