// Convolution: linear stencils over the first two dimensions (x, y) of a Func
// of any dimensionality; further dimensions (channels, batch) pass through.
//
// Results are float32 whatever the input type, except box_sum's, which keeps
// integer sums exact (widened to 32 bits). Inputs are read outside their
// domain at the stencil's radius, so bound the input first (for example with
// Halide::BoundaryConditions::repeat_edge) when it is an image parameter.
//
// Kernels are applied without flipping (out(x) = sum_i w[i] in(x + i - r)),
// which is the convolution by the mirrored kernel; for the symmetric kernels
// of image processing the two agree.
//
// Example:
//   Halide::Func blurred = strata::dsl::image::convolve_separable(
//       clamped, {0.25f, 0.5f, 0.25f}, {0.25f, 0.5f, 0.25f}, "blur");
//   Halide::Func filtered = strata::dsl::image::convolve(
//       clamped, kernel, kernel.dim(0).extent(), kernel.dim(1).extent(), "filtered");
//   Halide::Func patch_sums = strata::dsl::image::box_sum(differences, 0, patch_size, "patch_sums");
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

// out(x, y) = sum over j < kernel_height, i < kernel_width of
//     kernel(i, j) * in(x + i - kernel_width / 2, y + j - kernel_height / 2):
// a 2-D kernel given as a Func (for example an Input<Buffer<float>>) whose
// extents are Exprs, so they may be known only at run time. A zero pure
// definition and one update over RDom(0, kernel_width, 0, kernel_height),
// named name + "_taps".
Halide::Func convolve(const Halide::Func &input, const Halide::Func &kernel, const Halide::Expr &kernel_width,
                      const Halide::Expr &kernel_height, const std::string &name = "convolve");

// The sum of `size` consecutive samples along dimension `dim`, centered:
// out(x) = sum over i in [-(size / 2), size - size / 2) of in(x + i). `size`
// may be a run-time Expr; the sum is one update over an RDom named
// name + "_window". Float inputs give float sums; narrower integers widen to
// (u)int32.
Halide::Func box_sum(const Halide::Func &input, int dim, const Halide::Expr &size, const std::string &name = "box_sum");

}  // namespace strata::dsl::image
