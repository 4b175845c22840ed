// OutputComparison: element-wise checks of a pipeline output against its
// reference, and detection of elements that a schedule never wrote.
//
// Unwritten elements are found by running the pipeline twice over outputs
// poisoned with two different byte patterns: an element that still holds its
// poison in both runs was never written, whatever its type.
//
// Example:
//   poison(out_a, kPoisonA); run(...); poison(out_b, kPoisonB); run(...);
//   int64_t unwritten = count_unwritten(out_a, out_b);
//   OutputComparison c = compare_output("output", out_a, expected, Tolerance{});
#pragma once

#include "strata/harness/AppCheckSpec.h"

#include <HalideBuffer.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::harness {

constexpr uint8_t kPoisonA = 0xFF;  // all-ones: NaN for floats
constexpr uint8_t kPoisonB = 0x5A;

// Sets every byte of the buffer's host memory to `byte` and marks it host-dirty.
void poison(Halide::Runtime::Buffer<void> &buffer, uint8_t byte);

// Elements whose bytes are kPoisonA in `run_a` and kPoisonB in `run_b`.
int64_t count_unwritten(const Halide::Runtime::Buffer<void> &run_a, const Halide::Runtime::Buffer<void> &run_b);

struct OutputComparison {
    std::string name;
    int64_t elements = 0;
    int64_t mismatches = 0;      // elements outside the tolerance (NaN counts)
    double max_abs_error = 0;
    double max_rel_error = 0;    // |a - e| / max(|e|, tolerance.absolute)
    std::vector<std::string> first_mismatches;  // "at (x, y, ...): got A, expected E"

    bool passed() const { return mismatches == 0; }
};

// Both buffers must have the same type and shape.
OutputComparison compare_output(const std::string &name, const Halide::Runtime::Buffer<void> &actual,
                                const Halide::Runtime::Buffer<void> &expected, const Tolerance &tolerance);

}  // namespace strata::harness
