// RandomFill: deterministic random contents for pipeline inputs.
//
// Verification and benchmarking both want inputs that are random (so wrong
// indexing shows up) and never zero (so unwritten or skipped work shows up),
// and that are the same on every run for a given seed.
//
// Example:
//   strata::runtime::fill_uniform(args.buffer("input"), {0.05, 1.0}, /*seed=*/1);
#pragma once

#include <HalideBuffer.h>

#include <cstdint>

namespace strata::runtime {

// Closed interval of values. Integer buffers draw integers in [lo, hi],
// clamped to what the element type can hold.
struct ValueRange {
    double lo = 0.0;
    double hi = 1.0;
};

// The default for a type: floats in [0.05, 1], integers in [1, min(max, 255)],
// so that no element is zero and products stay in range.
ValueRange default_range(halide_type_t type);

void fill_uniform(Halide::Runtime::Buffer<void> &buffer, ValueRange range, uint64_t seed);

}  // namespace strata::runtime
