// Bias: adding a per-channel bias to a tensor, as after a convolution or a
// dense layer: out(..., c, ...) = input(..., c, ...) + bias(c).
//
// Example:
//   Halide::Func biased = strata::dsl::nn::bias_add(conv, bias, Layout::NCHW, "biased");
//   Halide::Func dense_out = strata::dsl::nn::bias_add(dense, bias, /*axis=*/0, "dense_out");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"

#include <string>

namespace strata::dsl::nn {

// `bias` is a 1-D Func indexed by dimension `axis` of `input`.
Halide::Func bias_add(const Halide::Func &input, const Halide::Func &bias, int axis,
                      const std::string &name = "bias_add");

// The bias indexed by the channel dimension of a 4-D feature map.
Halide::Func bias_add(const Halide::Func &input, const Halide::Func &bias, Layout layout,
                      const std::string &name = "bias_add");

}  // namespace strata::dsl::nn
