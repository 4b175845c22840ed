// Residual: the elementwise sum of a block's output and its shortcut, as in
// ResNet's identity connections: out(v) = a(v) + b(v), float32.
//
// Example:
//   Halide::Func sum = strata::dsl::nn::residual_add(bn2, input, "residual");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

// a and b have the same number of dimensions; the sum is taken where both are read.
Halide::Func residual_add(const Halide::Func &a, const Halide::Func &b, const std::string &name = "residual_add");

}  // namespace strata::dsl::nn
