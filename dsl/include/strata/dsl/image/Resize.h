// Resize: resampling an image to a given size by bilinear or bicubic
// interpolation, separably (along x into name + "_x", then along y).
//
// Pixel centres are aligned: output pixel x samples the input at
// (x + 0.5) · in_width / out_width - 0.5, likewise for y, so a resize to the
// same size is the identity and halving averages 2×2 blocks. Sample indices
// outside the input are clamped to its edge (the input is read only inside
// [0, in_width) × [0, in_height)). Bicubic uses Keys' cubic convolution with
// a = -0.5 (exact on quadratics; it can overshoot at edges). Both
// interpolate, they do not average areas: shrinking by more than 2× aliases
// unless the input is blurred first. Results are float32; dimensions after
// (x, y) pass through.
//
// Example:
//   Halide::Func small = strata::dsl::image::resize_bilinear(
//       input, input.dim(0).extent(), input.dim(1).extent(),
//       input.dim(0).extent() / 4, input.dim(1).extent() / 4, "small");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

Halide::Func resize_bilinear(const Halide::Func &input, const Halide::Expr &in_width, const Halide::Expr &in_height,
                             const Halide::Expr &out_width, const Halide::Expr &out_height,
                             const std::string &name = "resize_bilinear");

Halide::Func resize_bicubic(const Halide::Func &input, const Halide::Expr &in_width, const Halide::Expr &in_height,
                            const Halide::Expr &out_width, const Halide::Expr &out_height,
                            const std::string &name = "resize_bicubic");

}  // namespace strata::dsl::image
