// Require: how the operator builders reject bad arguments — a
// Halide::CompileError (what Halide itself throws for user errors) whose
// message names the operator and the offending Func or value.
//
// Example:
//   strata::dsl::require(sigma > 0, "gaussian_blur '" + name + "': sigma must be positive");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl {

inline void require(bool condition, const std::string &message) {
    if (!condition) throw Halide::CompileError(message + "\n");
}

}  // namespace strata::dsl
