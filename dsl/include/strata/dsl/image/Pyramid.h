// Pyramid: resampling by factors of two over (x, y) and the multi-scale
// image pyramids built from it (Burt and Adelson, 1983): Gaussian pyramids
// (blur, then drop every other sample), Laplacian pyramids (each level minus
// the upsampled next one) and their collapse back into an image.
//
// A PyramidKernel fixes the binomial filter and where the coarse samples sit:
//   Binomial3  [1 2 1] / 4        coarse sample i on fine sample 2i
//   Binomial4  [1 3 3 1] / 8      coarse sample i between fine samples 2i and 2i + 1
//   Binomial5  [1 4 6 4 1] / 16   coarse sample i on fine sample 2i
// upsample() is the matching expansion: zeros inserted between the samples,
// then the same filter doubled. For Binomial3 and Binomial4 that is linear
// interpolation between the two nearest coarse samples.
//
// Every Func is float32; dimensions after (x, y) pass through. The filters
// read beyond the image, so bound the input first (for example with
// Halide::BoundaryConditions::repeat_edge); coarser levels then extend past
// their nominal size by as much as their consumers ask for.
//
// Stage names, for hand-written schedules: downsample/upsample(name) are
// name + "_x" (along x) then name (along y). gaussian_pyramid(name) level i is
// name + "_level<i>" (level 0 a copy of the input); laplacian_pyramid(name)
// level i is name + "_level<i>", through name + "_level<i>_up"; the collapse
// is name, through name + "_level<i>" for the partial sums of the levels i ≥ 1.
//
// Example:
//   namespace image = strata::dsl::image;
//   const auto kernel = image::PyramidKernel::Binomial4;
//   std::vector<Halide::Func> g = image::gaussian_pyramid(clamped, 8, kernel, "g");
//   std::vector<Halide::Func> l = image::laplacian_pyramid(g, kernel, "l");
//   Halide::Func back = image::collapse_laplacian_pyramid(l, kernel, "back");   // == clamped
#pragma once

#include "Halide.h"

#include <string>
#include <vector>

namespace strata::dsl::image {

enum class PyramidKernel { Binomial3, Binomial4, Binomial5 };

// Filter and keep every other sample, over x and over y: half the size.
Halide::Func downsample(const Halide::Func &input, PyramidKernel kernel, const std::string &name = "downsample");

// Insert zeros and filter with twice the kernel, over x and over y: twice the size.
Halide::Func upsample(const Halide::Func &input, PyramidKernel kernel, const std::string &name = "upsample");

// Levels 0 … levels - 1, each half the size of the one before.
std::vector<Halide::Func> gaussian_pyramid(const Halide::Func &input, int levels, PyramidKernel kernel,
                                           const std::string &name = "gaussian_pyramid");

// Level i = gaussian[i] - upsample(gaussian[i + 1]); the last level is the
// coarsest Gaussian level itself.
std::vector<Halide::Func> laplacian_pyramid(const std::vector<Halide::Func> &gaussian, PyramidKernel kernel,
                                            const std::string &name = "laplacian_pyramid");

// The inverse of laplacian_pyramid: from the coarsest level, upsample and add
// the next finer level.
Halide::Func collapse_laplacian_pyramid(const std::vector<Halide::Func> &laplacian, PyramidKernel kernel,
                                        const std::string &name = "collapse");

}  // namespace strata::dsl::image
