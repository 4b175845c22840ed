// Matmul: matrix products in Halide's innermost-first layout, plain and
// batched.
//
// A matrix with M rows and K columns is a Func a(k, m) (k innermost, as in a
// row-major array). The product c(n, m) = sum_k a(k, m) * b(n, k) is a pure
// zero initialization and one update over an RDom of extent `k_extent`,
// named name + "_k". The operands are read through pure copies named
// name + "_lhs" and name + "_rhs": an autoscheduler inlines them for free, or
// stages them in shared memory per chunk of k (Strata's K-tiling), which it
// cannot do with an input buffer itself.
//
// batched_matmul multiplies matching matrices of two stacks: dimensions 2
// and up of a, b and the result are batch dimensions (heads, batch, ...).
// With Transpose::B it computes a · bᵀ, reading b as b(k, n): the form of
// attention's Q·Kᵀ, where both operands keep the feature dimension innermost.
// The batched products compute in float32.
//
// Example:
//   Halide::Func c = strata::dsl::nn::matmul(a, b, a_input.dim(0).extent(), "c");
//   // scores(j, i, h) = sum_d q(d, i, h) * k(d, j, h)
//   Halide::Func scores = strata::dsl::nn::batched_matmul(q, k, head_dim, "scores", strata::dsl::nn::Transpose::B);
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                    const std::string &name = "matmul");

enum class Transpose { None, B };

// c(n, m, batch...) = sum_k a(k, m, batch...) * b(n, k, batch...)   (Transpose::None)
// c(n, m, batch...) = sum_k a(k, m, batch...) * b(k, n, batch...)   (Transpose::B)
// a and b have the same number of dimensions, at least 2.
Halide::Func batched_matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                            const std::string &name = "batched_matmul", Transpose transpose = Transpose::None);

}  // namespace strata::dsl::nn
