//===- Autoscheduler.cpp - the Strata entry point --------------------------===//
//
// Target check → GPU spec → FunctionDAG → search → ScheduleWriter → results.
// Any failure to analyse or search a pipeline that Halide accepts falls back
// to the always-legal default schedule, with a warning naming the cause; a
// user error (missing estimate, non-GPU target) is reported, not hidden.
//===----------------------------------------------------------------------===//
#include "Autoscheduler.h"

#include "BeamSearch.h"
#include "CodeSize.h"
#include "Errors.h"
#include "Featurizer.h"
#include "FunctionDAG.h"
#include "LoweredCheck.h"
#include "LoweringProbe.h"
#include "ReductionFactoring.h"
#include "ScheduleImport.h"
#include "ScheduleSnapshot.h"
#include "Schedule.h"
#include "ScheduleWriter.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/DefaultCostModel.h"
#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/LearnedCostModel.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <set>
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

GpuSpec search_limits(const GpuSpec &spec, const Params &params) {
    GpuSpec limits = spec;
    limits.max_threads_per_block = std::min(spec.max_threads_per_block, params.max_threads_per_block);
    return limits;
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
        if (capability > 0) {
            bool exact = false;
            const GpuSpec &spec = GpuSpec::for_compute_capability(capability, &exact);
            if (!exact) {
                warn("no built-in GPU of compute capability " + std::to_string(capability) + "; scheduling for the " +
                     spec.marketing_name + " (" + spec.name + ", compute capability " +
                     std::to_string(spec.compute_capability) + "). Name the GPU with autoscheduler.gpu=<name> or "
                     "STRATA_GPU, or describe it in a spec file (autoscheduler.gpu_spec_file)");
            }
            return spec;
        }
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

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::map<std::string, int> func_indices(const FunctionDAG &dag) {
    std::map<std::string, int> index;
    int i = 0;
    for (const Node *node : dag.funcs()) index[node->name] = i++;
    return index;
}

// Thrown inside the search's try block when sample_index is out of range.
struct SampleUnavailable {
    int available = 0;
};

// Funcs the user scheduled, and the Funcs they are computed in (whose loops
// their compute_at names): Strata keeps both as the user wrote them.
std::set<std::string> user_kept_funcs(const FunctionDAG &dag) {
    std::set<std::string> kept;
    std::vector<const Node *> pending;
    for (const Node *node : dag.funcs()) {
        if (node->user_scheduled) pending.push_back(node);
    }
    while (!pending.empty()) {
        const Node *node = pending.back();
        pending.pop_back();
        if (!kept.insert(node->name).second) continue;
        Halide::LoopLevel level = node->func.schedule().compute_level();
        level.lock();
        if (level.is_inlined() || level.is_root()) continue;
        if (const Node *at = dag.node(level.func())) pending.push_back(at);
    }
    for (const std::string &name : kept) {
        warn("Func '" + name + "' already has a schedule; Strata keeps it as it is and schedules the rest around it");
    }
    return kept;
}

// The kept Funcs' schedules as the search's fixed choices.
void keep_user_schedules(BeamSearch &search, const FunctionDAG &dag, const std::set<std::string> &kept,
                         const GpuSpec &spec) {
    if (kept.empty()) return;
    const ImportedSchedule imported = import_schedule(dag, spec);
    for (const std::string &name : kept) {
        const Node *node = dag.node(name);
        if (!node) continue;
        FuncChoice choice = imported.schedule.choice(node->id);
        if (is_member(choice.placement)) {
            const std::string &kernel = dag.nodes()[choice.kernel_func]->name;
            if (!kept.count(kernel)) choice = default_choice(*node, spec);
        }
        search.keep(node->id, std::move(choice));
    }
}

std::string pipeline_name(const FunctionDAG &dag) {
    std::string name;
    for (const Node *node : dag.funcs()) {
        if (node->is_output) name += (name.empty() ? "" : "+") + node->name;
    }
    return name;
}

// The pipeline as its user wrote it, read before any scheduler touched it
// (a scheduled Func is no longer inlinable in the DAG, and reductions may be
// factored): every scheduler's schedules of one pipeline carry the same
// identity, so a profiling log groups them for ranking.
costmodel::ScheduleIdentity pipeline_identity(const FunctionDAG &as_written) {
    costmodel::ScheduleIdentity identity;
    identity.pipeline_name = pipeline_name(as_written);
    identity.pipeline_hash = costmodel::ContentHash::of_text(as_written.describe());
    identity.algorithm_hash = costmodel::ContentHash::of_text(as_written.describe(false));
    return identity;
}

// What a log record needs to reuse a measurement later: whose schedule of
// which pipeline, its features, and the GPU they were computed for.
void emit_featurization(Halide::AutoSchedulerResults *results, costmodel::ScheduleIdentity identity,
                        const std::string &schedule_source, const ScheduleFeaturization &features,
                        const GpuSpec &spec) {
    identity.schedule_hash = costmodel::ContentHash::of_text(schedule_source);
    costmodel::Featurization featurization{std::move(identity), features.stages};
    featurization.gpu_spec = spec;
    const std::string text = featurization.to_text();
    results->featurization.assign(text.begin(), text.end());
}

}  // namespace

std::string first_line(const std::string &text) { return text.substr(0, text.find('\n')); }

std::set<std::string> member_names(const FunctionDAG &dag, const Schedule &schedule) {
    std::set<std::string> names;
    for (const Node *node : dag.funcs()) {
        const Placement p = schedule.choice(node->id).placement;
        if (is_member(p)) names.insert(node->name);
    }
    return names;
}

// Lowers the pipeline as it is scheduled now (lowering_error()): Halide's
// verdict, or else the rejection a test injects, with each probe's time and
// round added to the report.
class LoweringProber {
public:
    LoweringProber(const Halide::Pipeline &pipeline, const Halide::Target &target, const InjectedFaults &faults,
                   AutoscheduleReport &report)
        : pipeline_(pipeline), target_(target), faults_(faults), report_(report) {}

    // `members`: the Funcs computed inside other Funcs' kernels.
    std::optional<std::string> operator()(const std::set<std::string> &members) const {
        const auto start = std::chrono::steady_clock::now();
        std::optional<std::string> error = lowering_error(pipeline_.outputs(), target_);
        if (!error && faults_.rejection) error = faults_.rejection(members);
        report_.lowering_probe_seconds += seconds_since(start);
        ++report_.lowering_probes;
        return error;
    }

    AutoscheduleReport &report() const { return report_; }

private:
    const Halide::Pipeline &pipeline_;
    const Halide::Target &target_;
    const InjectedFaults &faults_;
    AutoscheduleReport &report_;
};

// What Halide's verdict on a member's buffer depends on: the member, its
// kernel's own choice, every member of that kernel and the Funcs inlined
// anywhere (they shape the index math). Two finalists that agree on all of
// it get the same verdict.
std::string rejection_context(const Schedule &schedule, int member) {
    const FunctionDAG &dag = schedule.dag();
    const FuncChoice &choice = schedule.choice(member);
    std::string key = dag.nodes()[member]->name + " in " + dag.nodes()[choice.kernel_func]->name + ": " +
                      schedule.choice(choice.kernel_func).describe();
    for (const Node *node : dag.funcs()) {
        const FuncChoice &c = schedule.choice(node->id);
        if (c.member_of(choice.kernel_func, choice.kernel_stage) || c.placement == Placement::Inline) {
            key += "; " + node->name + ": " + c.describe();
        }
    }
    return key;
}

// The chunked kernel (func, stage) whose partial results (the writer's
// rfactor() intermediate, named by Halide as in `made_funcs`) `message`
// names, if any.
std::optional<std::pair<int, int>> chunked_kernel_named_in(const std::string &message, const Schedule &schedule,
                                                           const std::map<std::string, std::string> &made_funcs) {
    for (const Node *node : schedule.dag().funcs()) {
        for (const auto &stage : node->stages) {
            if (!schedule.runs_in_chunks(node->id, stage->index)) continue;
            if (!funcs_named_in(message, {chunk_partials_name(*node, made_funcs)}).empty()) {
                return std::make_pair(node->id, stage->index);
            }
        }
    }
    return std::nullopt;
}

// The members Halide rejected in earlier finalists: by rejection_context()
// (the same verdict for certain), and by member and kernel name (the same
// verdict likely; what a dearer finalist is priced with before deciding to
// lower it, see choose_finalist).
struct Rejections {
    std::set<std::string> contexts;
    std::set<std::pair<std::string, std::string>> in_kernels;
    std::set<int> gather_indices;  // index Funcs Halide rejected computed in place
};

std::string kernel_name(const Schedule &schedule, int member) {
    return schedule.dag().nodes()[schedule.choice(member).kernel_func]->name;
}

// The Funcs the schedule inlines into a data-dependent index (a gather's
// index computed in place), by the buffer the index reads. There Halide's
// simplifier may drop the index's clamp (it proves `g() & 124` within
// [0, 124]) where its bounds inference, which cannot, then finds the
// gathered buffer unbounded and refuses the pipeline (fuzz seed 771): such
// a schedule is lowered before it is returned.
std::map<std::string, std::set<int>> inlined_gather_indices(const Schedule &schedule) {
    std::map<std::string, std::set<int>> by_buffer;
    for (const Node *node : schedule.dag().funcs()) {
        for (const auto &stage : node->stages) {
            for (const Access &access : stage->accesses) {
                for (const Node *read : access.index_reads) {
                    if (schedule.choice(read->id).placement == Placement::Inline) {
                        by_buffer[access.callee->name].insert(read->id);
                    }
                }
            }
        }
    }
    return by_buffer;
}

// Gives the inlined Func `id` its own kernel, unless Halide requires it
// inline; whether it moved.
bool give_own_kernel(Schedule &schedule, int id, const GpuSpec &spec) {
    if (schedule.choice(id).placement != Placement::Inline) return false;
    FuncChoice own = default_choice(*schedule.dag().nodes()[id], spec, /*inline_cheap=*/false);
    if (own.placement == Placement::Inline) return false;
    schedule.set(id, std::move(own));
    return true;
}

// The repair of a clamp Halide dropped (inlined_gather_indices()): the index
// Funcs of the buffers `message` names (of every gather if it names none)
// get their own kernels, where the index reads their stored, clamped values.
// Returns the Funcs that moved.
std::set<int> compute_gather_indices_at_root(Schedule &schedule,
                                             const std::map<std::string, std::set<int>> &inlined,
                                             const std::string &message, const GpuSpec &spec) {
    std::set<std::string> buffers;
    for (const auto &[buffer, funcs] : inlined) buffers.insert(buffer);
    std::set<std::string> named = funcs_named_in(message, buffers);
    if (named.empty()) named = buffers;
    std::set<int> moved;
    for (const std::string &buffer : named) {
        for (int id : inlined.at(buffer)) {
            if (!give_own_kernel(schedule, id, spec)) continue;
            log(1, "Halide rejects an index of '" + buffer + "' computed in place (" + first_line(message) + "); '" +
                       schedule.dag().nodes()[id]->name + "' gets its own kernel");
            moved.insert(id);
        }
    }
    return moved;
}

// What an earlier finalist's rejections repaired in this one before it is
// lowered (rejected.contexts: the same verdict for certain; the gather
// indices Halide refused in place).
struct KnownRepairs {
    int members = 0, gather_indices = 0;
};

KnownRepairs apply_known_rejections(Schedule &schedule, const Rejections &rejected, const GpuSpec &spec) {
    const FunctionDAG &dag = schedule.dag();
    KnownRepairs known;
    std::vector<int> members;
    for (const std::string &name : member_names(dag, schedule)) {
        const int id = dag.node(name)->id;
        if (rejected.contexts.count(rejection_context(schedule, id))) members.push_back(id);
    }
    for (int id : members) {
        log(1, "'" + dag.nodes()[id]->name + "' leaves its kernel, as Halide rejected it there in an earlier finalist");
        leave_kernel(schedule, id, spec);
        ++known.members;
    }
    for (int id : rejected.gather_indices) {
        if (!give_own_kernel(schedule, id, spec)) continue;
        log(1, "'" + dag.nodes()[id]->name + "' gets its own kernel, as Halide rejected it in place in an earlier "
                   "finalist");
        ++known.gather_indices;
    }
    return known;
}

// Halide settles a member's buffer size in bounds inference, while it
// lowers: where it cannot prove the constant size registers and unrolled
// loops need (a clamp or a fused grid in the index math) or finds the
// writer's storage bound short, the members its error names leave their
// kernel and the schedule is written again, until Halide lowers it; a
// chunked kernel whose partial results it names runs unchunked; where it
// finds a gathered buffer unbounded, the indices computed in place get their
// own kernels (compute_gather_indices_at_root). Any other error is not the
// writer's to repair: it is thrown. A schedule with neither members nor
// gather indices in place is not lowered here.
// What earlier finalists' rejections repair (apply_known_rejections) is
// repaired at once, without another lowering to say so. Returns how many
// Funcs moved.
int repair_by_lowering(const LoweringProber &probe, Schedule &schedule, std::optional<ScheduleWriter> &writer,
                       ScheduleSnapshot &unwritten, const GpuSpec &spec, const std::set<std::string> &kept,
                       Rejections &rejected) {
    const FunctionDAG &dag = schedule.dag();
    auto rewrite = [&] {
        unwritten.restore();
        writer.emplace(dag, schedule, spec, kept);
        writer->apply();
    };
    const KnownRepairs known = apply_known_rejections(schedule, rejected, spec);
    int moved = known.members + known.gather_indices;
    if (moved > 0) rewrite();
    // A schedule whose gather indices moved to their own kernels is lowered
    // once more: nothing else in it has been checked.
    bool check_repair = known.gather_indices > 0;
    for (;;) {
        const std::set<std::string> members = member_names(dag, schedule);
        const std::map<std::string, std::set<int>> gathers = inlined_gather_indices(schedule);
        if (members.empty() && gathers.empty() && !check_repair) break;
        check_repair = false;
        if (log_level() >= 3) log(3, "lowering this schedule to check it:\n" + writer->source(func_indices(dag)));
        const std::optional<std::string> error = probe(members);
        if (!error) break;
        const std::set<std::string> named = funcs_named_in(*error, members);
        if (named.empty()) {
            if (const auto chunked = chunked_kernel_named_in(*error, schedule, writer->made_funcs())) {
                log(1, "Halide rejects the partial results of kernel " +
                           dag.nodes()[chunked->first]->stages[chunked->second]->name + " (" + first_line(*error) +
                           "); its reduction runs unchunked");
                moved += run_unchunked(schedule, chunked->first, chunked->second, spec);
            } else {
                const std::set<int> at_root = compute_gather_indices_at_root(schedule, gathers, *error, spec);
                if (at_root.empty()) fail(*error);
                moved += int(at_root.size());
                rejected.gather_indices.insert(at_root.begin(), at_root.end());
                check_repair = true;
            }
            rewrite();
            continue;
        }
        std::vector<int> leaving;
        for (const std::string &name : named) {
            const int id = dag.node(name)->id;
            rejected.contexts.insert(rejection_context(schedule, id));
            rejected.in_kernels.emplace(name, kernel_name(schedule, id));
            leaving.push_back(id);
        }
        for (int id : leaving) {
            log(1, "Halide rejects the buffer of '" + dag.nodes()[id]->name + "' (" + first_line(*error) +
                       "); it leaves its kernel");
            leave_kernel(schedule, id, spec);
            ++moved;
        }
        rewrite();
    }
    return moved;
}

// Lowering probes for finalists beyond the cheapest may take this long, or
// as long as the beam search took if that is longer, unless the user sets
// Params::finalist_probe_ms. The apps' probes take up to about 5 s in all
// (local_laplacian, on two busy cores), and every finalist that must be
// tried should be: a 5 s budget let beam 32 answer worse than beam 8. On a
// pipeline of hundreds of stages one probe (Halide lowering it) outweighs
// the search.
constexpr double kMinFinalistProbeSeconds = 30;

// The finalist's price with the members Halide rejected in the same kernel
// of an earlier finalist taken out, and the gather indices it rejected in
// place given their own kernels: what its repair would most likely be.
double price_without_rejected(Schedule schedule, const Rejections &rejected, BeamSearch &search,
                              const GpuSpec &spec) {
    const FunctionDAG &dag = schedule.dag();
    for (const std::string &name : member_names(dag, schedule)) {
        const int id = dag.node(name)->id;
        if (is_member(schedule.choice(id).placement) && rejected.in_kernels.count({name, kernel_name(schedule, id)})) {
            leave_kernel(schedule, id, spec);
        }
    }
    for (int id : rejected.gather_indices) give_own_kernel(schedule, id, spec);
    return search.cost(schedule);
}

// A complete schedule the search found, its price, and what the code-size
// pass changed in it.
struct Finalist {
    Schedule schedule;
    double cost = 0;
    CodeSizeChanges code_size;
};

// Writes the cheapest finalist that Halide accepts, repairing what it
// rejects (repair_by_lowering). Finalists (one per beam width that improved
// the answer, so a few) are tried from the cheapest, each repaired and
// priced again: a repair can make a dearer finalist the cheapest (unsharp,
// before its rejections were fixed: beam 8's pick, repaired, priced below
// beam 32's), and trying them keeps a wider beam (whose finalists include a
// narrower one's) from answering worse. Each probe is a full lowering, so a
// dearer finalist is lowered only where it may still win: the first that
// Halide accepts as written ends the walk (every later one is priced at
// least as high as written), and one priced, with the members Halide
// rejected in the same kernels before taken out, at no less than the best
// so far is passed over. Only a repair that lowers a price more than that
// could undercut them. Past `probe_budget` seconds of probes, the cheapest
// repaired so far is kept.
void choose_finalist(const LoweringProber &probe, std::vector<Finalist> &finalists,
                     BeamSearch &search, std::optional<ScheduleWriter> &writer, ScheduleSnapshot &unwritten,
                     const GpuSpec &spec, const std::set<std::string> &kept, double probe_budget,
                     SearchResult &result) {
    AutoscheduleReport &report = probe.report();
    const FunctionDAG &dag = finalists.front().schedule.dag();
    std::stable_sort(finalists.begin(), finalists.end(),
                     [](const Finalist &a, const Finalist &b) { return a.cost < b.cost; });
    std::optional<size_t> chosen;
    size_t written = 0;
    Rejections rejected;
    std::exception_ptr first_failure;
    report.finalists = int(finalists.size());
    for (size_t i = 0; i < finalists.size(); ++i) {
        auto &[schedule, cost, code_size] = finalists[i];
        if (i > 0 && report.lowering_probe_seconds > probe_budget) {
            log(1, "lowering probes took " + std::to_string(report.lowering_probe_seconds) + " s; " +
                       std::to_string(finalists.size() - i) + " dearer finalist(s) not tried");
            break;
        }
        if (chosen && price_without_rejected(schedule, rejected, search, spec) >= finalists[*chosen].cost) {
            log(2, "finalist " + std::to_string(i + 1) + " is passed over: without the members Halide rejected, "
                       "it is priced no lower than finalist " + std::to_string(*chosen + 1));
            continue;
        }
        ++report.finalists_tried;
        if (i > 0) unwritten.restore();
        written = i;
        // A finalist Halide rejects in a way no repair names is dropped;
        // the call fails only if every finalist is.
        bool as_written = false;
        try {
            writer.emplace(dag, schedule, spec, kept);
            writer->apply();
            as_written = repair_by_lowering(probe, schedule, writer, unwritten, spec, kept, rejected) == 0;
            if (!as_written) cost = search.cost(schedule);
        } catch (...) {
            if (!first_failure) first_failure = std::current_exception();
            log(1, "finalist " + std::to_string(i + 1) + " of " + std::to_string(finalists.size()) +
                       " is dropped: " + first_line(current_exception_message()));
            continue;
        }
        if (!chosen || cost < finalists[*chosen].cost) chosen = i;
        if (as_written) {
            if (i + 1 < finalists.size()) {
                log(2, "finalist " + std::to_string(i + 1) + " lowers as written; the " +
                           std::to_string(finalists.size() - i - 1) + " dearer one(s) are not lowered");
            }
            break;
        }
    }
    if (!chosen) std::rethrow_exception(first_failure);
    if (written != *chosen) {
        unwritten.restore();
        writer.emplace(dag, finalists[*chosen].schedule, spec, kept);
        writer->apply();
    }
    result.schedule = finalists[*chosen].schedule;
    result.cost = finalists[*chosen].cost;
    report.code_size = finalists[*chosen].code_size;
}

costmodel::ScheduleIdentity unscheduled_pipeline_identity(const Halide::Pipeline &pipeline) {
    return pipeline_identity(FunctionDAG(pipeline.outputs()));
}

PredictionReport predict_existing_schedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                           const Params &params, const FeaturizationRequest *featurize) {
    set_log_level(params.verbose);
    require_gpu_target(target);
    const GpuSpec spec = select_gpu_spec(params, target);
    const std::unique_ptr<costmodel::CostModel> model = select_cost_model(params, spec);
    FunctionDAG dag(pipeline.outputs(), Wrappers::AsLowered);
    ImportedSchedule imported = import_schedule(dag, spec);
    BeamSearch pricing(dag, spec, *model, params);
    PredictionReport report;
    report.funcs = int(dag.funcs().size());
    report.gpu = spec.name;
    report.cost_model = model->describe();
    report.predicted_seconds = pricing.cost(imported.schedule);
    const ScheduleFeaturization features = pricing.featurize(imported.schedule);
    report.kernels = features.kernels;
    if (!features.legal) report.why_illegal = features.why_illegal;
    if (!params.lowered_check.empty()) {
        install_lowered_check(pipeline, priced_schedule(dag, imported.schedule, features, spec), params.lowered_check);
    }
    if (featurize) {
        emit_featurization(featurize->results, featurize->identity, featurize->results->schedule_source, features,
                           spec);
    }
    report.approximations = std::move(imported.approximations);
    return report;
}

AutoscheduleReport autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                const Params &params, Halide::AutoSchedulerResults *results,
                                const InjectedFaults &faults) {
    const auto start = std::chrono::steady_clock::now();
    set_log_level(params.verbose);
    // Everything that can reject the call is checked before any Func is touched.
    require_gpu_target(target);
    const GpuSpec spec = select_gpu_spec(params, target);
    const GpuSpec search_spec = search_limits(spec, params);
    const std::unique_ptr<costmodel::CostModel> model = select_cost_model(params, spec);
    ScheduleSnapshot::undo_earlier_schedules(pipeline.outputs());
    const FunctionDAG original(pipeline.outputs());  // estimates checked here
    const costmodel::ScheduleIdentity identity = pipeline_identity(original);
    const std::set<std::string> kept = user_kept_funcs(original);
    // Nothing Strata does to the Funcs survives a failure: a snapshot of the
    // user's pipeline, definitions included (reductions get factored).
    ScheduleSnapshot users_pipeline(original);

    FactoredReductions factored;
    SearchResult result{Schedule(original), 0, {}};
    std::optional<BeamSearch> search;
    std::optional<ScheduleWriter> writer;
    AutoscheduleReport report;
    const Halide::Target probe_for = probe_target(target, pipeline.outputs(), !kept.empty());
    const LoweringProber probe(pipeline, probe_for, faults, report);
    bool fell_back = false;
    std::string fallback_reason;
    try {
        // Reductions too short for the GPU are factored first; the search
        // then sees their intermediates as ordinary Funcs.
        factored = factor_short_reductions(pipeline, original, search_spec, params);
        const FunctionDAG &searched = factored.dag ? *factored.dag : original;
        ScheduleSnapshot unwritten(searched);
        log(3, "pipeline:\n" + searched.describe());
        search.emplace(searched, search_spec, *model, params);
        keep_user_schedules(*search, searched, kept, search_spec);
        const auto search_start = std::chrono::steady_clock::now();
        result = search->run();
        report.beam_search_seconds = seconds_since(search_start);
        if (params.sample_index > 0) {
            std::optional<SearchResult> drawn = search->sample(params.sample_index);
            if (!drawn) throw SampleUnavailable{search->samples_available()};
            drawn->stats = result.stats;
            result = std::move(*drawn);
        }
        if (faults.after_search) faults.after_search();
        if (params.sample_index > 0 || result.finalists.empty()) result.finalists = {{result.schedule, result.cost}};
        const auto price = [&](const Schedule &s) { return search->cost(s); };
        std::vector<Finalist> finalists;
        for (auto &[schedule, cost] : result.finalists) {
            Finalist &f = finalists.emplace_back(Finalist{std::move(schedule), cost, {}});
            const bool shifted = shift_tails_under_divisions(f.schedule) > 0;
            f.code_size = shrink_code_within(f.schedule, price, params.code_slowdown_pct / 100.0);
            if (shifted || f.code_size.any()) f.cost = price(f.schedule);
        }
        result.finalists.clear();
        const double probe_budget = params.finalist_probe_ms > 0
                                        ? params.finalist_probe_ms / 1000.0
                                        : std::max(kMinFinalistProbeSeconds, report.beam_search_seconds);
        choose_finalist(probe, finalists, *search, writer, unwritten, search_spec, kept, probe_budget, result);
    } catch (const SampleUnavailable &missing) {
        // A request the search cannot meet is the user's to change, not a
        // failure to hide behind the default schedule.
        users_pipeline.restore();
        fail("sample_index " + std::to_string(params.sample_index) + " asks for more schedules than the " +
             std::to_string(missing.available) + " distinct ones the search priced for this pipeline; use a "
             "smaller index or a larger beam_size");
    } catch (...) {
        // A pipeline Halide accepts always gets a schedule: the user's
        // pipeline back, with the default schedule.
        fell_back = true;
        fallback_reason = current_exception_message();
        warn("the search failed on this pipeline (" + fallback_reason +
             "); it gets the default schedule: pure Funcs inlined where cheap, every other Func its own kernel");
        factored = FactoredReductions{};
        search.emplace(original, search_spec, *model, params);
        // Kept Funcs keep the user's schedule (the writer leaves them alone);
        // the fallback prices them as defaults.
        auto write_fallback = [&](bool inline_cheap) {
            users_pipeline.restore();
            result = SearchResult{Schedule(original), 0, {}};
            if (inline_cheap) complete_with_defaults(result.schedule, search_spec);
            else complete_with_kernels(result.schedule, search_spec);
            writer.emplace(original, result.schedule, search_spec, kept);
            writer->apply();
        };
        try {
            write_fallback(true);
            if (const std::optional<std::string> error = probe({})) {
                warn("Halide cannot lower the default schedule either (" + first_line(*error) +
                     "); every Func that can have its own kernel gets one");
                write_fallback(false);
            }
        } catch (...) {
            users_pipeline.restore();
            throw;
        }
        result.cost = search->cost(result.schedule);
    }
    const FunctionDAG &dag = factored.dag ? *factored.dag : original;
    users_pipeline.remember_as_unscheduled();

    report.fell_back = fell_back;
    report.fallback_reason = fallback_reason;
    report.gpu = spec.name;
    report.cost_model = model->describe();
    report.predicted_seconds = result.cost;
    report.funcs = int(dag.funcs().size());
    report.evaluations = result.stats.candidates;
    report.search_seconds = seconds_since(start);

    const ScheduleFeaturization features = search->featurize(result.schedule);
    report.kernels = features.kernels;
    // Storage checks the probe proved to hold are no code the kernels need.
    drop_proven_storage_checks(pipeline);
    if (!params.lowered_check.empty()) {
        install_lowered_check(pipeline, priced_schedule(dag, result.schedule, features, spec, writer->made_funcs()),
                              params.lowered_check);
    }
    if (results) {
        const std::string body = factored.source + writer->source(func_indices(dag));
        std::ostringstream source;
        source << "// Strata schedule for " << spec.name << " (" << report.kernels << " kernels, predicted "
               << result.cost * 1e3 << " ms by the " << model->describe() << "; seed " << params.seed << ", beam "
               << params.beam_size << ", passes " << params.passes
               << (params.sample_index > 0 ? ", sample " + std::to_string(params.sample_index) : std::string())
               << ")\n";
        source << body;
        results->schedule_source = source.str();
        emit_featurization(results, identity, body, features, spec);
    }
    if (log_level() >= 3) {
        for (const Node *node : dag.funcs()) log(3, "  " + node->name + ": " + result.schedule.choice(node->id).describe());
    }
    std::ostringstream summary;
    summary << "scheduled " << report.funcs << " Funcs as " << report.kernels << " kernels for " << spec.name
            << ": predicted " << result.cost * 1e3 << " ms, " << result.stats.candidates << " candidates in "
            << report.search_seconds << " s (beam search " << report.beam_search_seconds << " s, "
            << report.lowering_probes << " lowering probes " << report.lowering_probe_seconds << " s); "
            << "code size: kernels with shifted tails " << report.code_size.shifted << ", fewer unrolled points "
            << report.code_size.fewer_unrolled << ", unpartitioned " << report.code_size.unpartitioned;
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
