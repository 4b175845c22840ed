// Convolution: linear stencils over the first two dimensions (x, y) of a Func
// of any dimensionality; further dimensions (channels, batch) pass through.
//
// Results are float32 whatever the input type. Inputs are read outside their
// domain at the stencil's radius, so bound the input first (for example with
// Halide::BoundaryConditions::repeat_edge) when it is an image parameter.
//
// Example:
//   Halide::Func blurred = strata::dsl::image::convolve_separable(
//       clamped, {0.25f, 0.5f, 0.25f}, {0.25f, 0.5f, 0.25f}, "blur");
#pragma once

#include "Halide.h"

#include <array>
#include <string>
#include <vector>

namespace strata::dsl::image {

// out(x, y) = sum over dy, dx in [-1, 1] of weights[(dy + 1) * 3 + (dx + 1)] * in(x + dx, y + dy).
Halide::Func convolve3x3(const Halide::Func &input, const std::array<float, 9> &weights,
                         const std::string &name = "convolve3x3");

// A centered 1-D convolution along dimension `dim` (an odd number of taps).
Halide::Func convolve_1d(const Halide::Func &input, int dim, const std::vector<float> &taps,
                         const std::string &name = "convolve_1d");

// Along x with `taps_x` (into a Func named name + "_x"), then along y with `taps_y`.
Halide::Func convolve_separable(const Halide::Func &input, const std::vector<float> &taps_x,
                                const std::vector<float> &taps_y, const std::string &name = "convolve");

}  // namespace strata::dsl::image
