// CheckSpec: what the verification harness (tests/harness) needs to check a
// compiled random pipeline — the output buffers' names and boxes, the
// inputs' value ranges, a tolerance per output, and the interpreter as the
// reference — so that the apps' checks (poisoned outputs, random inputs,
// unwritten elements, launch limits) apply to generated pipelines unchanged.
//
// Output k of the generator is the buffer "out<k>", or "out<k>.<e>" for
// element e of a tuple. Integer outputs must match exactly. A float output
// may differ by a relative 2e-3 plus an absolute error proportional to the
// largest magnitude among the stages it depends on (cancellation leaves
// errors of that size near zero), measured by interpreting the pipeline once
// on inputs drawn like the check's. float64 gets no tighter bound: Halide
// 21's OpenCL (C-family) code generator writes every float64 constant at
// float32 precision (`(double) float_from_bits(...)`).
//
// Example:
//   AppCheckSpec spec = check_spec(read_description("seed17.json"));
//   CheckResult r = strata::harness::check_variant("seed17", variant, spec, 1);
#pragma once

#include "strata/fuzz/Description.h"
#include "strata/harness/AppCheckSpec.h"

#include <string>
#include <vector>

namespace strata::fuzz {

// The buffer names of output k (one per tuple element).
std::vector<std::string> output_buffer_names(const Description &description, size_t k);

harness::AppCheckSpec check_spec(const Description &description);

}  // namespace strata::fuzz
