// Color: conversions between color representations of (x, y, c) images.
//
// Example:
//   Halide::Func gray = strata::dsl::image::luminance(rgb, "gray");   // (x, y)
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

// Rec. 601 luma of an (x, y, c) image with c in {0: R, 1: G, 2: B}; float32 result over (x, y).
Halide::Func luminance(const Halide::Func &rgb, const std::string &name = "luminance");

}  // namespace strata::dsl::image
