// Padding: a feature map extended beyond its spatial bounds by a constant —
// zero for convolutions, the lowest float for max pooling. The bounds are
// explicit Exprs (usually an input buffer's extents), so the padded Func can
// wrap any producer, and reads of the producer stay inside [0, width) ×
// [0, height): bounds inference never asks it for the halo.
//
// Example:
//   Halide::Func padded = strata::dsl::nn::pad_spatial(
//       input, Layout::NCHW, input.dim(0).extent(), input.dim(1).extent(), 0.0f, "padded");
#pragma once

#include "Halide.h"
#include "strata/dsl/nn/Layout.h"
#include "strata/dsl/nn/Window.h"

#include <string>

namespace strata::dsl::nn {

// padded(x, y, c, n) = input(x, y, c, n) inside [0, width) × [0, height), else `value`.
Halide::Func pad_spatial(const Halide::Func &input, Layout layout, const Halide::Expr &width,
                         const Halide::Expr &height, const Halide::Expr &value, const std::string &name);

// What a windowed operator named `consumer` reads: `input` itself when the
// window has no padding, else pad_spatial(...) named consumer + "_padded",
// which needs `in.width` and `in.height`.
Halide::Func pad_for_window(const Halide::Func &input, const FeatureExtents &in, const Window2d &window,
                            Layout layout, const Halide::Expr &value, const std::string &consumer);

}  // namespace strata::dsl::nn
