// Softmax: normalized exponentials along one axis of a tensor of any shape,
// numerically stable (the maximum along the axis is subtracted before
// exponentiating, so large inputs neither overflow nor lose the result).
//
//   out(..., i, ...) = exp(in(..., i, ...) - m) / sum over j of exp(in(..., j, ...) - m),
//   m = max over j of in(..., j, ...),   j in [0, extent) along `axis`
//
// Stages (Funcs over the other dimensions are named with the axis removed):
//   name + "_max"  -inf (the lowest float), then one update over the RDom name + "_max_r"
//   name + "_exp"  exp(in - max), pure (inlined unless scheduled)
//   name + "_sum"  zero, then one update over the RDom name + "_sum_r"
//   name           name_exp / name_sum
// Masked entries (attention) can be set to the lowest float: they get
// probability exactly 0 as long as one entry of the row is unmasked.
//
// Example:
//   Halide::Func probs = strata::dsl::nn::softmax(logits, 0, logits_input.dim(0).extent(), "probs");
//   Halide::Func row_max = strata::dsl::find_stage(probs, "probs_max");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func softmax(const Halide::Func &input, int axis, const Halide::Expr &extent,
                     const std::string &name = "softmax");

// The value a max reduction starts from, and what masked logits are set to.
Halide::Expr lowest_float();

}  // namespace strata::dsl::nn
