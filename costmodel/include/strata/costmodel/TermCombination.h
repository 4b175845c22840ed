// TermCombination: how per-stage analytic terms, each scaled by a per-stage
// coefficient, add up to a pipeline's run time.
//
// Stages in one kernel share the GPU's throughput resources, so a kernel
// takes as long as its busiest resource (compute, DRAM, L2 or shared memory)
// over all its stages, or as long as its longest chain of dependent steps
// (latency: a scan whose steps each wait on the memory the step before
// stored) where that is longer; atomics, barriers and launches add on top.
// Kernels run one after another:
//
//   time = Σ_kernels [ max_r Σ_{s in kernel} c_{s,r} t_{s,r}  +  Σ_{s in kernel, a} c_{s,a} t_{s,a} ]
//
// for r in {Compute, Dram, L2, Shared, Latency} and a in {Atomic, Sync, Launch}.
// Coefficients of 1 give the pure analytic model; the learned model
// predicts them. The gradient with respect to the coefficients is what
// training needs.
//
// Example:
//   std::vector<StageTerms> stages = {{0, terms_a}, {0, terms_b}, {1, terms_c}};
//   std::vector<TermVector> ones(3, unit_coefficients());
//   double seconds = pipeline_seconds(stages, ones, nullptr);
#pragma once

#include "strata/costmodel/FeatureSchema.h"

#include <vector>

namespace strata::costmodel {

struct StageTerms {
    int kernel = 0;
    TermVector terms{};
};

// True for the terms that overlap within a kernel (the kernel takes the
// largest): the throughput of each resource, and the latency of its chains.
constexpr bool overlaps_within_kernel(Term t) {
    return t == Term::Compute || t == Term::Dram || t == Term::L2 || t == Term::Shared || t == Term::Latency;
}

TermVector unit_coefficients();

// `coefficients` has one entry per stage. If `gradient` is non-null it is
// resized like `coefficients` and receives d time / d coefficient.
double pipeline_seconds(const std::vector<StageTerms> &stages, const std::vector<TermVector> &coefficients,
                        std::vector<TermVector> *gradient);

}  // namespace strata::costmodel
