// Upsample: doubling the spatial resolution of a feature map, per channel.
//
// upsample_nearest2x repeats each pixel 2 × 2. upsample_bilinear2x
// interpolates with PyTorch's Upsample(scale_factor=2, mode="bilinear",
// align_corners=False) weights: output pixel 2i samples the input at
// i - 1/4 and 2i + 1 at i + 1/4, i.e. 3/4 of pixel i plus 1/4 of its
// neighbour on that side, with the edge pixel repeated beyond the border.
// It is separable: name + "_x" doubles the width, name the height. The
// input's width and height (in.width, in.height) bound the neighbours.
//
// Example:
//   Halide::Func up = strata::dsl::nn::upsample_bilinear2x(
//       bottleneck, {w / 8, h / 8, {}}, strata::dsl::nn::Layout::NCHW, "up3");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func upsample_nearest2x(const Halide::Func &input, Layout layout, const std::string &name = "upsample");

Halide::Func upsample_bilinear2x(const Halide::Func &input, const FeatureExtents &in, Layout layout,
                                 const std::string &name = "upsample");

}  // namespace strata::dsl::nn
