// Concat: stacking feature maps along the channel axis (torch.cat(dim=1) for
// NCHW), as U-Net's decoder joins upsampled features with the encoder's skip
// connection. Part p supplies channels [offset_p, offset_p + channels[p]).
// The parts must agree in width, height and batch. Each part is read only
// inside its own channel range (its index is clamped), so bounds inference
// asks each part for exactly its channels.
//
// Example:
//   Halide::Func joined = strata::dsl::nn::concat_channels(
//       {skip, up}, {skip_channels, up_channels}, strata::dsl::nn::Layout::NCHW, "cat3");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"

#include <string>
#include <vector>

namespace strata::dsl::nn {

Halide::Func concat_channels(const std::vector<Halide::Func> &parts, const std::vector<Halide::Expr> &channels,
                             Layout layout, const std::string &name = "concat");

}  // namespace strata::dsl::nn
