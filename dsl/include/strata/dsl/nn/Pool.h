// Pool: max and average pooling over square spatial windows of a feature
// map (PyTorch's MaxPool2d and AvgPool2d), per channel, float32.
//
// Padding, where the window has it, is the lowest float for max pooling (so
// it never wins) and zero for average pooling, which always divides by
// kernel² (PyTorch's count_include_pad = True). Stages:
//   name + "_padded"  the padded input (only when padding > 0; needs in.width, in.height)
//   max_pool:  name   the lowest float, then a max update over the RDom name + "_r" = (rx, ry)
//   avg_pool:  name + "_sum" (zero, then a sum update over name + "_r"), name = sum / kernel²
//
// Example:
//   // 2×2, stride 2: halves the width and height
//   Halide::Func pooled = strata::dsl::nn::max_pool(act, {}, {2, 2, 0, 1}, strata::dsl::nn::Layout::NCHW, "pool1");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"
#include "strata/dsl/nn/Window.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func max_pool(const Halide::Func &input, const FeatureExtents &in, const Window2d &window, Layout layout,
                      const std::string &name = "max_pool");

Halide::Func avg_pool(const Halide::Func &input, const FeatureExtents &in, const Window2d &window, Layout layout,
                      const std::string &name = "avg_pool");

}  // namespace strata::dsl::nn
