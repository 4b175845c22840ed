// RecursiveFilter: first-order recursive (IIR) smoothing along one dimension,
// as scans: update definitions whose RDom walks that dimension, so every
// element depends on its neighbour's result. The other dimensions are pure
// and carry all the parallelism.
//
//   causal:       y[n] = (1 - alpha) y[n - 1] + alpha x[n], from first to last
//   anti-causal:  y[n] = (1 - alpha) y[n + 1] + alpha x[n], from last to first
//   symmetric:    the causal pass, then the anti-causal pass over its result
//                 (a zero-phase exponential smoothing, as in Halide's iir_blur)
//
// alpha in (0, 1] weighs the input (alpha = 1 copies it). The scan covers
// [min, min + extent) along `dim` and starts from the edge element itself
// (y[min] = x[min], as if the signal continued constantly), so the extent is
// usually the input's extent in that dimension.
//
// The result is float32 and, like the filter itself, defined ONLY inside
// [min, min + extent) along `dim`: its pure definition is undef (no copy pass
// precedes the scans), the first update writes the starting edge, the next
// one (or two) scan. Consumers must not read it outside that interval.
//
// Example:
//   // Column pass then row pass over a w×h image, as the iir_blur app does.
//   Halide::Func cols = strata::dsl::image::symmetric_recursive_filter(
//       input, 1, alpha, 0, input.dim(1).extent(), "blur_y");
//   Halide::Func rows = strata::dsl::image::symmetric_recursive_filter(
//       cols, 0, alpha, 0, input.dim(0).extent(), "blur_x");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

Halide::Func causal_recursive_filter(const Halide::Func &input, int dim, const Halide::Expr &alpha,
                                     const Halide::Expr &min, const Halide::Expr &extent,
                                     const std::string &name = "causal_filter");

Halide::Func anticausal_recursive_filter(const Halide::Func &input, int dim, const Halide::Expr &alpha,
                                         const Halide::Expr &min, const Halide::Expr &extent,
                                         const std::string &name = "anticausal_filter");

Halide::Func symmetric_recursive_filter(const Halide::Func &input, int dim, const Halide::Expr &alpha,
                                        const Halide::Expr &min, const Halide::Expr &extent,
                                        const std::string &name = "symmetric_filter");

}  // namespace strata::dsl::image
