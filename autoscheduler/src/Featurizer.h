// Featurizer: the per-stage features (FeatureSchema.h) of a complete
// Schedule — what the cost model prices. Each kernel (a Root Func's stage
// with its Block and Thread members and the Funcs inlined into them) is
// analysed by KernelAnalysis: regions per block and per thread from
// KernelGeometry (the same ones the writer emits), points, arithmetic and
// memory traffic, warps simulated for coalescing and bank conflicts
// (KernelWarps), occupancy and waves from the GPU spec.
//
// Kernels are memoized by their composition (root stage, tiling, members,
// inlined Funcs): candidate schedules that differ elsewhere reuse them. A
// beam step queues the kernels it has not seen (PendingKernels) and has them
// analysed together on several threads; an analysis reads only its kernel's
// schedule, the DAG and the spec.
//
// Example:
//   Featurizer featurizer(dag, spec);
//   costmodel::ScheduleFeatures features = featurizer.featurize(schedule);
#pragma once

#include "FunctionDAG.h"
#include "KernelAnalysis.h"
#include "KernelGeometry.h"
#include "Schedule.h"
#include "WorkerPool.h"

#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/GpuSpec.h"

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace strata::autoscheduler {

struct FeaturizerStats {
    int64_t kernels_featurized = 0;
    int64_t kernel_cache_hits = 0;
};

struct ScheduleFeaturization {
    costmodel::ScheduleFeatures stages;
    bool legal = true;
    std::string why_illegal;
    int kernels = 0;
};

// Kernels found uncached while a beam step recomposes its candidates, each
// with what its analysis needs, queued once per key: analysed together, on
// several threads, by Featurizer::analyze_pending(). Each thread that
// recomposes candidates queues into a PendingKernels of its own, and the
// step absorbs them into one: the lookups are counted with the queue, so
// the totals come out as one thread queueing them all would count them.
class PendingKernels {
public:
    bool empty() const { return jobs_.empty(); }

    // Takes `other`'s kernels and counts; a kernel both queued is queued
    // once, its second lookup counted as a hit.
    void absorb(PendingKernels &&other);

private:
    friend class Featurizer;
    struct Job {
        uint64_t key;
        Schedule schedule;  // a copy: the caller's changes as it recomposes
        KernelScope scope;
    };
    std::vector<Job> jobs_;
    std::unordered_set<uint64_t> keys_;
    int64_t cache_hits_ = 0;  // lookups answered by the cache or by a queued kernel
};

class Featurizer {
public:
    Featurizer(const FunctionDAG &dag, const costmodel::GpuSpec &spec, bool memoize = true);

    // Features of every non-inlined stage; kernels numbered in realization order.
    ScheduleFeaturization featurize(const Schedule &schedule);

    // The features of one kernel (a Root Func's stage), cached. If `key` is
    // non-null it receives a hash of the kernel's composition (equal
    // compositions, equal features).
    const KernelFeatures &kernel(const Schedule &schedule, int func, int stage, uint64_t *key = nullptr);

    // The features of every kernel of `schedule` in realization order,
    // each analysed anew: nothing is read from or written to the cache, so
    // several threads may call it at once.
    std::vector<KernelFeatures> analyze_all(const Schedule &schedule) const;

    // kernel() for a batch (memoizing featurizers only): the key of
    // (func, stage)'s kernel in `schedule`, and its features if they are
    // cached; else the kernel is queued in `pending` (once per key) and null
    // is returned until analyze_pending() has run. Counted with `pending`,
    // into stats() by analyze_pending(), as kernel() counts. Reads the cache
    // only: threads may call it at once, each with a `pending` of its own,
    // while nothing is analysed.
    const KernelFeatures *kernel_or_queue(const Schedule &schedule, int func, int stage, uint64_t &key,
                                          PendingKernels &pending) const;
    // Analyses the queued kernels, side by side on `pool`'s threads, caches
    // them in queue order, adds the lookups' counts to stats() and empties
    // `pending`.
    void analyze_pending(PendingKernels &pending, WorkerPool &pool);

    // The features of a kernel featurized before (memoized), or null.
    const KernelFeatures *cached(uint64_t key) const {
        auto it = cache_.find(key);
        return it == cache_.end() ? nullptr : &it->second;
    }

    const FeaturizerStats &stats() const { return stats_; }

private:
    uint64_t kernel_key(const Schedule &schedule, const KernelScope &scope) const;
    // The cached features of `key`, counted as a hit; null when memoization
    // is off or the kernel is not cached.
    const KernelFeatures *cache_hit(uint64_t key);
    // The analysis of one kernel: reads only its arguments, the DAG and the
    // spec (and shares the DAG's folds and leaves, which lock), so analyses of
    // different kernels may run at once.
    KernelFeatures analyze(const Schedule &schedule, const KernelScope &scope) const;

    const FunctionDAG &dag_;
    costmodel::GpuSpec spec_;
    bool memoize_;
    std::unordered_map<uint64_t, KernelFeatures> cache_;
    // The DAG's stages folded with the Funcs inlined into them, kept whether
    // or not kernels are memoized: facts of the pipeline, not of a schedule
    // (InlinedFolds.h).
    mutable InlinedFolds folds_;
    // The stages' leaf loads through their inlined Funcs, likewise
    // (StageLeaves.h).
    mutable StageLeaves leaves_;
    FeaturizerStats stats_;
};

}  // namespace strata::autoscheduler
