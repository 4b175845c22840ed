// Conv2d: 2-D convolution of a feature map (cross-correlation, as in
// PyTorch's Conv2d) with stride, zero padding and dilation.
//
//   out(x, y, co, n) = sum over rx, ry in [0, kernel), ci in [0, channels) of
//       padded(x*stride + rx*dilation - padding, y*stride + ry*dilation - padding, ci, n)
//       * weights(rx, ry, ci, co)
//
// The input is NCHW = Func(w, h, c, n) or NHWC = Func(c, w, h, n) and the
// output has the same layout; weights are Func(kw, kh, ci, co) in both.
// Arithmetic is float32. Stages:
//   name + "_padded"  the input, zero outside [0, width) × [0, height) (only when padding > 0)
//   name              zero, then one update over the RDom name + "_r" whose
//                     RVars, innermost first, follow the input's memory order:
//                     (rx, ry, rc) for NCHW, (rc, rx, ry) for NHWC.
// `in.channels` (the reduction extent) is always needed; `in.width` and
// `in.height` only with padding.
//
// Example:
//   using namespace strata::dsl::nn;
//   FeatureExtents in{input.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent()};
//   Halide::Func conv = conv2d(input, weights, in, Window2d{3, 1, 1, 1}, Layout::NCHW, "conv");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"
#include "strata/dsl/nn/Window.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func conv2d(const Halide::Func &input, const Halide::Func &weights, const FeatureExtents &in,
                    const Window2d &window, Layout layout, const std::string &name = "conv2d");

}  // namespace strata::dsl::nn
