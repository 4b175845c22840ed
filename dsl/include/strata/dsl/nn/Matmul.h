// Matmul: matrix products in Halide's innermost-first layout.
//
// A matrix with M rows and K columns is a Func a(k, m) (k innermost, as in a
// row-major array). The product c(n, m) = sum_k a(k, m) * b(n, k) is a pure
// zero initialization and one update over an RDom of extent `k_extent`.
//
// Example:
//   Halide::Func c = strata::dsl::nn::matmul(a, b, a_input.dim(0).extent(), "c");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                    const std::string &name = "matmul");

}  // namespace strata::dsl::nn
