// Stages: look up the Funcs an operator builder created by the names it gave
// them, for the hand-written schedules of the benchmark apps. (Users of the
// autoscheduler never need this.)
//
// Example:
//   Halide::Func blur = strata::dsl::image::gaussian_blur(gray, 1.5f, "blur");
//   Halide::Func blur_x = strata::dsl::find_stage(blur, "blur_x");
//   blur_x.compute_at(blur, x);
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl {

// The Func named `name` that `consumer` calls directly or transitively (or
// `consumer` itself). Fails with a Halide error listing the names it found.
Halide::Func find_stage(const Halide::Func &consumer, const std::string &name);

// The name a builder gave `f`: its Halide name without the "$<n>" suffix
// Halide may append to make names unique in the process.
//   given_name(image::gaussian_blur(gray, 1.5f, "blur")) == "blur"
std::string given_name(const Halide::Func &f);

}  // namespace strata::dsl
