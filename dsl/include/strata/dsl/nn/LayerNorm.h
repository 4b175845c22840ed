// LayerNorm: normalization over the innermost (feature) axis, as in
// transformers (PyTorch's LayerNorm over the last dimension):
//
//   out(f, t...) = (in(f, t...) - mean(t...)) / sqrt(var(t...) + epsilon) * gamma(f) + beta(f)
//
// with the biased variance (divided by the feature count). The variance is
// computed from the centered values (two passes), which keeps float32
// accurate when the mean is large against the spread. Stages (the per-token
// ones are Funcs over the outer dimensions):
//   name + "_sum"       zero, then an update over the RDom name + "_sum_r"
//   name + "_mean"      sum / features (pure)
//   name + "_centered"  in - mean (pure)
//   name + "_sq_sum"    zero, then an update over the RDom name + "_sq_sum_r" of centered²
//   name + "_inv_std"   1 / sqrt(sq_sum / features + epsilon) (pure)
//   name                centered * inv_std * gamma + beta
//
// Example:
//   Halide::Func normed = strata::dsl::nn::layer_norm(
//       tokens, gamma, beta, tokens_input.dim(0).extent(), 1e-5f, "ln");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func layer_norm(const Halide::Func &input, const Halide::Func &gamma, const Halide::Func &beta,
                        const Halide::Expr &features, float epsilon, const std::string &name = "layer_norm");

}  // namespace strata::dsl::nn
