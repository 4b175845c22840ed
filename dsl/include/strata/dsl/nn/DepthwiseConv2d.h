// DepthwiseConv2d: a 2-D convolution of each channel with its own kernel
// (PyTorch's Conv2d with groups = channels, channel multiplier 1), with
// stride, zero padding and dilation — the first half of a MobileNet
// depthwise-separable block.
//
//   out(x, y, c, n) = sum over rx, ry in [0, kernel) of
//       padded(x*stride + rx*dilation - padding, y*stride + ry*dilation - padding, c, n)
//       * weights(rx, ry, c)
//
// NCHW = Func(w, h, c, n) or NHWC = Func(c, w, h, n) in and out; weights are
// Func(kw, kh, c). Stages: name + "_padded" (when padding > 0), name (zero,
// then one update over the RDom name + "_r" = (rx, ry)). Only `in.width` and
// `in.height` are read, and only with padding.
//
// Example:
//   Halide::Func dw = strata::dsl::nn::depthwise_conv2d(
//       input, dw_weights, {input.dim(1).extent(), input.dim(2).extent(), {}},
//       strata::dsl::nn::Window2d{3, 1, 1, 1}, strata::dsl::nn::Layout::NHWC, "dw");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"
#include "strata/dsl/nn/Window.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func depthwise_conv2d(const Halide::Func &input, const Halide::Func &weights, const FeatureExtents &in,
                              const Window2d &window, Layout layout, const std::string &name = "depthwise_conv2d");

}  // namespace strata::dsl::nn
