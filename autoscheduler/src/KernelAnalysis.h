// KernelAnalysis: the features of one GPU kernel of a schedule — a Root
// Func's stage with its per-block and per-thread members and the Funcs
// inlined into them — one StageFeatures per stage the kernel computes, and
// whether the kernel can launch on the GPU at all. The Featurizer memoizes
// kernels and assembles a schedule's features from them.
//
// Example:
//   const KernelScope scope = KernelScope::collect(dag, schedule, func, /*stage=*/0);
//   InlinedFolds folds(dag);     // one per DAG, shared by its analyses
//   StageLeaves leaves(folds);   // likewise
//   KernelFeatures k = analyze_kernel(dag, spec, schedule, scope, leaves, folds);
//   if (!k.legal) std::cerr << k.why_illegal << "\n";
#pragma once

#include "FunctionDAG.h"
#include "InlinedFolds.h"
#include "KernelGeometry.h"
#include "KernelWarps.h"
#include "Schedule.h"
#include "StageLeaves.h"

#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/GpuSpec.h"

#include <string>
#include <vector>

namespace strata::autoscheduler {

// The features of one kernel, and whether it can run at all (fits the
// GPU's per-block and launch limits).
struct KernelFeatures {
    std::vector<costmodel::StageFeatures> stages;
    bool legal = true;
    std::string why_illegal;
};

// `leaves`: the leaf loads of `dag`'s stages composed so far (StageLeaves.h);
// `folds`: its stages folded with the Funcs inlined into them so far
// (InlinedFolds.h). Both are shared by the analyses of one search.
KernelFeatures analyze_kernel(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const Schedule &schedule,
                              const KernelScope &scope, StageLeaves &leaves, InlinedFolds &folds);

// An extern stage: opaque, priced as streaming its inputs and its output
// once at full occupancy.
KernelFeatures analyze_extern_kernel(const Node &node, const costmodel::GpuSpec &spec);

}  // namespace strata::autoscheduler
