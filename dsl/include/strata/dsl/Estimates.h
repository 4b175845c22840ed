// Estimates: the sizes an app states for its inputs and outputs, which is all
// an autoscheduler needs (intermediate sizes follow by bounds inference).
//
// Example (inside a Generator's generate()):
//   strata::dsl::estimate_extents(input, {1536, 2560, 3});
//   strata::dsl::estimate_extents(output, {1536, 2560, 3});
#pragma once

#include "Halide.h"

#include <vector>

namespace strata::dsl {

// The Region [0, extent) in each dimension.
Halide::Region extents_region(const std::vector<int> &extents);

// Sets the estimate of a generator Input<Buffer<>> or Output<Buffer<>> to
// [0, extent) in each dimension.
template <typename BufferIO>
void estimate_extents(BufferIO &io, const std::vector<int> &extents) {
    io.set_estimates(extents_region(extents));
}

}  // namespace strata::dsl
