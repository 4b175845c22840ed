// Gradient: Sobel derivatives over (x, y), the building block of corner and
// edge detectors.
//
// Example:
//   Halide::Func ix = strata::dsl::image::sobel_x(gray, "ix");
//   Halide::Func iy = strata::dsl::image::sobel_y(gray, "iy");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

// d/dx: [-1 0 1; -2 0 2; -1 0 1] / 8 (normalized so a unit ramp gives 1).
Halide::Func sobel_x(const Halide::Func &input, const std::string &name = "sobel_x");
// d/dy: the transpose of sobel_x.
Halide::Func sobel_y(const Halide::Func &input, const std::string &name = "sobel_y");

}  // namespace strata::dsl::image
