// Blur: Gaussian and box blurs over (x, y), built on separable convolution.
//
// Example:
//   Halide::Func soft = strata::dsl::image::gaussian_blur(clamped, 1.5f, "soft");
#pragma once

#include "Halide.h"

#include <string>
#include <vector>

namespace strata::dsl::image {

// Normalized Gaussian taps for `sigma`, radius ceil(3 sigma).
std::vector<float> gaussian_taps(float sigma);

// A separable Gaussian blur (Funcs name + "_x" and name).
Halide::Func gaussian_blur(const Halide::Func &input, float sigma, const std::string &name = "gaussian_blur");

// The mean over a (2 radius + 1)² box (Funcs name + "_x" and name).
Halide::Func box_blur(const Halide::Func &input, int radius, const std::string &name = "box_blur");

}  // namespace strata::dsl::image
