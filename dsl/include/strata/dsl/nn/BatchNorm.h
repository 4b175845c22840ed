// BatchNorm: inference-time batch normalization of a feature map with the
// running statistics of training, per channel c:
//
//   out = (in - mean(c)) / sqrt(variance(c) + epsilon) * gamma(c) + beta(c)
//
// folded into one multiply-add per element. Stages: name + "_scale" =
// gamma / sqrt(variance + epsilon) and name + "_shift" = beta - mean * scale
// (pure, per channel; inlined unless scheduled), name = in * scale + shift.
//
// Example:
//   Halide::Func bn = strata::dsl::nn::batch_norm(conv, bn_mean, bn_var, bn_gamma, bn_beta, 1e-5f,
//                                                 strata::dsl::nn::Layout::NCHW, "bn1");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func batch_norm(const Halide::Func &input, const Halide::Func &mean, const Halide::Func &variance,
                        const Halide::Func &gamma, const Halide::Func &beta, float epsilon, Layout layout,
                        const std::string &name = "batch_norm");

}  // namespace strata::dsl::nn
