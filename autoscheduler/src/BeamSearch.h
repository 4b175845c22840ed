// BeamSearch: finds a Schedule for a FunctionDAG by deciding Funcs from the
// outputs towards the inputs, keeping the `beam_size` cheapest partial
// schedules at each step. Partial schedules are priced by completing them
// with default choices (Schedule.h) and asking the cost model.
//
// Two phases. Phase 1 decides only inline vs. root (default tilings) for
// every Func. Phase 2 frees the most expensive kernels of phase 1's best
// schedule and the Funcs that feed them — every placement (inline, root,
// block, thread) and sampled tilings — while the rest keep their phase-1
// placement and only search tilings. Phase 2 runs `passes` times, coarse to
// fine: each later pass samples tilings around the previous best. With
// two_phase off, one search of that full space runs over every Func.
//
// The decision hierarchy, per Func: its placement (inline, its own kernel,
// or a member of its consumers' kernel per block, per thread or staged per
// chunk: at most five, all offered), then for a kernel its tiling (grouped
// by structure and sampled a few per group with the seed, GpuTiling.h),
// then for a chunkable reduction its chunk length (8, 16, 32). Fusion is
// not a level of its own: a member placement is the fusion decision. With
// sampling off every legal tiling is offered.
//
// The answer is the cheapest complete schedule priced anywhere in the
// search (every candidate is priced completed with defaults), not just the
// last beam's best: a search never answers worse than something it priced.
// The search runs at widths B/16, B/4 and B (down to 2), so a wider beam's
// answer is never worse than a narrower one's in that chain (8, 32, 128...).
//
// Kernel costs are memoized by kernel composition, and each step prices all
// new kernels of all candidates in one batch. A candidate differs from its
// beam state (completed with defaults) in the one Func just decided, so only
// the kernels that Func can recompose are walked and keyed (KernelTable):
// a candidate's price costs the same whatever the pipeline's size. With
// memoize off, every candidate is featurized and priced whole, from scratch.
//
// The kernels a step must analyse (most of the search's time) are analysed
// side by side on `threads` threads (WorkerPool.h), and cached and priced in
// the order a single thread would: the answer and every statistic are the
// same whatever the thread count.
//
// Example:
//   BeamSearch search(dag, spec, model, params);
//   SearchResult best = search.run();
#pragma once

#include "Featurizer.h"
#include "FunctionDAG.h"
#include "KernelTable.h"
#include "Params.h"
#include "Schedule.h"

#include "strata/costmodel/CostModel.h"
#include "strata/costmodel/GpuSpec.h"

#include <limits>
#include <map>
#include <random>
#include <set>
#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

namespace strata::autoscheduler {

struct SearchStats {
    int64_t candidates = 0;        // schedules priced
    int64_t kernels_priced = 0;    // cost-model evaluations of kernels
    int64_t kernel_cost_hits = 0;  // kernel prices reused
    int64_t kernels_featurized = 0;  // kernel features computed
    int64_t kernel_feature_hits = 0; // kernel features reused
    double phase1_cost = 0;
    double final_cost = 0;
    int free_funcs = 0;
};

struct SearchResult {
    Schedule schedule;
    double cost = 0;  // predicted seconds
    SearchStats stats;
    // The cheapest schedule priced so far at the end of each beam width's
    // search, distinct, cheapest first (`schedule` is the first). A caller
    // that finds the first unusable (Halide rejects part of it) tries the
    // next: a wider beam's finalists include a narrower one's, so its answer
    // stays no worse after such repairs.
    std::vector<std::pair<Schedule, double>> finalists;
};

class BeamSearch {
public:
    BeamSearch(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const costmodel::CostModel &model,
               const Params &params);

    SearchResult run();

    // The i-th (i ≥ 1) distinct complete schedule of those the last run()
    // priced, in an order drawn with the seed; nullopt past the last one.
    std::optional<SearchResult> sample(int i) const;
    int samples_available() const { return int(reservoir_.size()); }

    // Fixes a Func's choice (a schedule the user wrote, read back): the
    // search prices it as it is, and places nothing inside it.
    void keep(int node, FuncChoice choice);

    // The predicted seconds of a complete schedule (infinity if it cannot run).
    double cost(const Schedule &schedule);
    // Device memory the schedule's buffers take at the estimated sizes: the
    // inputs and every root Func (members live in registers and shared memory).
    double device_bytes(const Schedule &schedule) const;
    // The features of a complete schedule (kernels already seen are reused).
    ScheduleFeaturization featurize(const Schedule &schedule) { return featurizer_.featurize(schedule); }

private:
    enum class Mode { InlineOrRoot, Full };
    struct Candidate;

    // A beam entry: the Funcs decided so far, the complete schedule they
    // make with defaults, and (memoized searches) that schedule's kernels.
    struct BeamState {
        Schedule partial;
        Schedule complete;
        std::optional<KernelTable> kernels;
        double device_bytes = 0;  // of `complete` (device_bytes())
    };
    BeamState start_state();
    // device_bytes() of the state's complete schedule with `node` placed so
    // (whole numbers of bytes: exact whatever the order of the sums).
    double device_bytes_with(const BeamState &state, const Node &node, Placement placement) const;
    bool fits_on_device(double bytes) const;
    std::vector<BeamState> beam_step(std::vector<BeamState> beam, const Node &node, Mode mode, int pass,
                                     const Schedule *guide, std::vector<double> *costs);
    using Choices = std::vector<std::shared_ptr<const FuncChoice>>;
    Choices options(const Schedule &state, const Node &node, Mode mode, bool free_func, int pass,
                    const Schedule *guide);
    const Choices &root_options(const Node &node, Mode mode, int pass, const Schedule *guide);
    Choices member_options(const Schedule &state, const Node &node, const KernelSite &site);
    bool block_extent_provable(const GpuTiling &tiling, const MemberFootprint &footprint, const KernelSite &site);
    // CodeSize's tail_may_shift(), remembered by Func, stage, dimension and tile.
    bool tail_may_shift(int func, int stage, size_t d, int64_t tile);
    std::map<std::tuple<int, int, size_t, int64_t>, bool> shiftable_tails_;
    std::map<int, std::optional<std::vector<std::optional<Region>>>> reached_from_root_;
    // One way to decide the step's Func: a beam state's index and a choice.
    using Candidates = std::vector<std::pair<int, std::shared_ptr<const FuncChoice>>>;
    struct Priced {
        std::vector<double> costs;                           // by candidate
        std::vector<std::vector<RecomposedKernel>> changes;  // by candidate (memoized searches)
    };
    // A priced candidate that may enter the next beam.
    struct Child {
        size_t candidate;
        double cost;
        uint64_t key;        // the partial schedule's hash: equal schedules are kept once
        uint64_t tie_order;  // orders equal costs (Schedule::tie_order_with), set for ties only
    };
    std::vector<BeamState> keep_cheapest(const std::vector<BeamState> &beam, const Node &node,
                                         const Candidates &candidates, const Priced &priced,
                                         std::vector<Child> &children, std::vector<double> *costs_out);
    // The price of each candidate: its state's complete schedule with `node`
    // set to its choice.
    Priced price_candidates(std::vector<BeamState> &beam, int node, const Candidates &candidates);
    // The price of one complete schedule, every kernel walked and keyed.
    double price_whole(const Schedule &complete);
    // The price of a complete schedule from its kernels' features, in
    // realization order (Featurizer::analyze_all): memoization off.
    double price_analysed(const Schedule &complete, const std::vector<KernelFeatures> &kernels);
    // Prices the kernels of these keys (featurized, memoized) in one batch.
    void predict_kernels(const std::vector<uint64_t> &keys);
    // Decides every undecided Func with its (cached) default choice.
    void complete(Schedule &schedule);
    std::vector<int> choose_free_funcs(const Schedule &phase1);
    SearchResult finish(const Schedule &best, double best_cost);
    // One search at beam_width_ (both phases, every pass): its best and cost.
    std::pair<Schedule, double> run_width();
    int beam_width_ = 1;

    const FunctionDAG &dag_;
    costmodel::GpuSpec spec_;
    const costmodel::CostModel &model_;
    Params params_;
    Featurizer featurizer_;
    WorkerPool workers_;  // analyses each step's new kernels
    KernelSlots slots_;
    std::unordered_map<uint64_t, double> kernel_costs_;
    // Root choices depend only on the Func, the mode and the pass.
    std::map<std::tuple<int, int, int>, std::vector<std::shared_ptr<const FuncChoice>>> root_options_;
    std::vector<std::shared_ptr<const FuncChoice>> defaults_;
    std::vector<bool> free_;
    std::map<int, std::shared_ptr<const FuncChoice>> kept_;
    SearchStats stats_;
    // The cheapest complete schedule priced so far, anywhere in the search.
    std::optional<Schedule> best_seen_;
    double best_seen_cost_ = std::numeric_limits<double>::infinity();
    // A uniform sample (reservoir sampling, seeded) of the distinct complete
    // schedules priced, for sample_index.
    void offer_sample(const Schedule &schedule, double cost);
    std::vector<std::pair<Schedule, double>> reservoir_;
    std::set<uint64_t> offered_;
    std::mt19937_64 sampler_;
};

}  // namespace strata::autoscheduler
