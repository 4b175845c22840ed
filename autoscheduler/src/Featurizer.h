// Featurizer: the per-stage features (FeatureSchema.h) of a complete
// Schedule — what the cost model prices. Each kernel (a Root Func's stage
// with its Block and Thread members and the Funcs inlined into them) is
// analysed by KernelAnalysis: regions per block and per thread from
// KernelGeometry (the same ones the writer emits), points, arithmetic and
// memory traffic, warps simulated for coalescing and bank conflicts
// (KernelWarps), occupancy and waves from the GPU spec.
//
// Kernels are memoized by their composition (root stage, tiling, members,
// inlined Funcs): candidate schedules that differ elsewhere reuse them.
//
// Example:
//   Featurizer featurizer(dag, spec);
//   costmodel::ScheduleFeatures features = featurizer.featurize(schedule);
#pragma once

#include "FunctionDAG.h"
#include "KernelAnalysis.h"
#include "KernelGeometry.h"
#include "Schedule.h"

#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/GpuSpec.h"

#include <map>
#include <string>
#include <unordered_map>
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

class Featurizer {
public:
    Featurizer(const FunctionDAG &dag, const costmodel::GpuSpec &spec, bool memoize = true);

    // Features of every non-inlined stage; kernels numbered in realization order.
    ScheduleFeaturization featurize(const Schedule &schedule);

    // The features of one kernel (a Root Func's stage), cached. If `key` is
    // non-null it receives a hash of the kernel's composition (equal
    // compositions, equal features).
    const KernelFeatures &kernel(const Schedule &schedule, int func, int stage, uint64_t *key = nullptr);

    // The features of a kernel featurized before (memoized), or null.
    const KernelFeatures *cached(uint64_t key) const {
        auto it = cache_.find(key);
        return it == cache_.end() ? nullptr : &it->second;
    }

    const FeaturizerStats &stats() const { return stats_; }

private:
    uint64_t kernel_key(const Schedule &schedule, const KernelScope &scope) const;

    const FunctionDAG &dag_;
    costmodel::GpuSpec spec_;
    bool memoize_;
    std::unordered_map<uint64_t, KernelFeatures> cache_;
    FeaturizerStats stats_;
};

}  // namespace strata::autoscheduler
