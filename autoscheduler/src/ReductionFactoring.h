// ReductionFactoring: parallelizes reductions whose pure parallelism is too
// short for a GPU (a sum to a scalar, a histogram, a few long rows) by
// factoring them with Halide's rfactor() before the search: the innermost
// RVar is split and its inner part becomes a pure dimension of an
// intermediate Func (consecutive threads read consecutive elements), and an
// outer RVar is split and its outer part becomes another (contiguous chunks
// per partial result). The intermediate is then an ordinary Func to the
// search; the original reduction merges its partial results.
//
// Only associative update stages are factored (Halide proves it), the
// intermediate is kept within a memory budget, and a merge that is itself
// still long is factored once more.
//
// Example:
//   FactoredReductions f = factor_short_reductions(pipeline, dag, spec, params);
//   // f.source: C++ that applies the same factoring, to run first
//   const FunctionDAG &searched = f.dag ? *f.dag : dag;
#pragma once

#include "FunctionDAG.h"
#include "Params.h"

#include "strata/costmodel/GpuSpec.h"

#include "Halide.h"

#include <memory>
#include <string>
#include <vector>

namespace strata::autoscheduler {

struct FactoredReductions {
    std::string source;                     // C++ for the schedule source, before everything else
    std::vector<std::string> intermediates; // names of the Funcs rfactor() made
    // The pipeline analysed after the factoring; none when nothing was
    // factored (the analysis given stands).
    std::unique_ptr<FunctionDAG> dag;
};

// Applies the factoring to the pipeline's Funcs, `dag` being the pipeline's
// analysis before it (it changes the pipeline: `dag` no longer describes it
// when something was factored).
FactoredReductions factor_short_reductions(const Halide::Pipeline &pipeline, const FunctionDAG &dag,
                                           const costmodel::GpuSpec &spec, const Params &params);

}  // namespace strata::autoscheduler
