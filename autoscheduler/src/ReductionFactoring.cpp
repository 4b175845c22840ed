//===- ReductionFactoring.cpp - rfactor short-parallelism reductions -------===//
#include "ReductionFactoring.h"

#include "Directive.h"
#include "Errors.h"
#include "FunctionDAG.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace strata::autoscheduler {

namespace {

// Factoring levels: the merge of a factored reduction may itself be long.
constexpr int kMaxLevels = 2;
// The intermediate holds at most this many partial results.
constexpr int64_t kMaxIntermediatePoints = int64_t(1) << 22;
// Reductions shorter than this per output point are left alone.
constexpr int64_t kMinReductionPoints = 256;

int64_t floor_pow2(int64_t v) {
    int64_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

struct Plan {
    std::string func;
    int stage = 0;
    std::vector<Directive> directives;
};

// The factoring of one update stage, or nothing.
bool plan_stage(const Stage &stage, const costmodel::GpuSpec &spec, Plan &plan) {
    if (!stage.is_update() || !stage.associative) return false;
    const Node &node = *stage.node;
    const std::vector<Span> bounds = stage.loop_bounds(node.root_region);
    int64_t pure_points = 1, reduction_points = 1;
    std::vector<size_t> rvars;  // innermost first
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        if (stage.loops[i].is_rvar) {
            rvars.push_back(i);
            reduction_points *= bounds[i].extent;
        } else {
            pure_points *= bounds[i].extent;
        }
    }
    const int64_t enough = int64_t(spec.sm_count) * spec.max_threads_per_sm / 4;
    if (rvars.empty() || pure_points >= enough || reduction_points < kMinReductionPoints) return false;
    // Every partial result is a copy of the Func's region.
    const int64_t region_points = std::max<int64_t>(node.root_points(), 1);
    const int64_t budget = std::max<int64_t>(kMaxIntermediatePoints / region_points, 1);

    const std::string f = node.name;
    const int s = stage.index;
    std::vector<std::pair<std::string, std::string>> preserved;
    int64_t partials = 1;

    // Innermost RVar: its inner part across threads, for coalescing.
    const Loop &inner = stage.loops[rvars.front()];
    const int64_t inner_extent = bounds[rvars.front()].extent;
    if (inner_extent >= 64) {
        const int64_t lanes =
            std::min({floor_pow2(std::max<int64_t>(enough / pure_points, 32)), floor_pow2(inner_extent / 2),
                      floor_pow2(std::min<int64_t>(256, spec.max_threads_per_block)), floor_pow2(budget)});
        if (lanes >= 16) {
            const std::string v = inner.handle(), o = v + "_o", i = v + "_i";
            plan.directives.push_back(Directive::split(f, s, v, o, i, lanes));
            preserved.emplace_back(i, f + "_" + v + "_lane");
            partials *= lanes;
        }
    }
    // An outer RVar: chunks of it in parallel.
    if (rvars.size() > 1 && pure_points * partials < enough) {
        const Loop &outer = stage.loops[rvars.back()];
        const int64_t outer_extent = bounds[rvars.back()].extent;
        const int64_t want = std::max<int64_t>(enough / (pure_points * partials), 1);
        const int64_t chunks = std::min({outer_extent, want, std::max<int64_t>(budget / partials, 1)});
        if (chunks >= 4) {
            const int64_t chunk = (outer_extent + chunks - 1) / chunks;
            const std::string v = outer.handle(), o = v + "_o", i = v + "_i";
            plan.directives.push_back(Directive::split(f, s, v, o, i, chunk));
            preserved.emplace_back(o, f + "_" + v + "_chunk");
            partials *= (outer_extent + chunk - 1) / chunk;
        }
    }
    if (preserved.empty()) {
        plan.directives.clear();
        return false;
    }
    // Identifier-safe names for the new pure Vars.
    for (auto &p : preserved) {
        for (char &c : p.second) {
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
        }
    }
    plan.func = f;
    plan.stage = s;
    plan.directives.push_back(Directive::rfactor(f, s, preserved, f + "_intm"));
    log(2, "factoring " + stage.name + ": " + std::to_string(partials) + " partial results per point");
    return true;
}

std::map<std::string, int> current_func_indices(const Halide::Pipeline &pipeline) {
    std::map<std::string, Halide::Internal::Function> env;
    std::vector<Halide::Internal::Function> outputs;
    for (const Halide::Func &f : pipeline.outputs()) {
        outputs.push_back(f.function());
        for (const auto &entry : Halide::Internal::find_transitive_calls(f.function())) env.emplace(entry);
    }
    std::map<std::string, int> index;
    int i = 0;
    for (const std::string &name : Halide::Internal::topological_order(outputs, env)) index[name] = i++;
    return index;
}

}  // namespace

FactoredReductions factor_short_reductions(const Halide::Pipeline &pipeline, const FunctionDAG &original,
                                           const costmodel::GpuSpec &spec, const Params &params) {
    FactoredReductions result;
    if (!params.parallel_reductions) return result;
    bool factored_since_analysis = false;
    for (int level = 0; level < kMaxLevels; ++level) {
        if (factored_since_analysis) result.dag = std::make_unique<FunctionDAG>(pipeline.outputs());
        factored_since_analysis = false;
        const FunctionDAG &dag = result.dag ? *result.dag : original;
        std::vector<Plan> plans;
        for (const Node *node : dag.funcs()) {
            for (const auto &stage : node->stages) {
                Plan plan;
                if (plan_stage(*stage, spec, plan)) plans.push_back(std::move(plan));
            }
        }
        if (plans.empty()) break;
        for (const Plan &plan : plans) {
            // Index Funcs as the pipeline is now, before this factoring.
            SourcePrinter printer(current_func_indices(pipeline));
            DirectiveTarget target;
            for (const Node *node : dag.funcs()) {
                target.add_func(Halide::Func(node->func));
                for (const auto &st : node->stages) {
                    for (const Loop &loop : st->loops) {
                        if (loop.is_rvar) target.mark_rvar(node->name, st->index, loop.handle());
                    }
                }
            }
            std::vector<Directive> applied;
            for (Directive d : plan.directives) {
                target.apply(d);
                applied.push_back(d);
            }
            const std::string intermediate = target.last_rfactor_result();
            applied.back().result_func = intermediate;
            result.source += printer.print_func(plan.func, applied, target);
            result.intermediates.push_back(intermediate);
            factored_since_analysis = true;
        }
    }
    if (factored_since_analysis) result.dag = std::make_unique<FunctionDAG>(pipeline.outputs());
    return result;
}

}  // namespace strata::autoscheduler
