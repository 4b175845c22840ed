// ScalarType: the element types a random pipeline computes in, with the
// arithmetic each one has in Halide, so that the interpreter and the drawing
// code agree with what a compiled pipeline does.
//
// Halide defines wrap-around for 8- and 16-bit integers but assumes that
// 32-bit signed arithmetic never overflows; division rounds towards negative
// infinity and the modulus is never negative. `wrap` and the integer helpers
// below give exactly those results.
//
// Example:
//   ScalarType t = parse_scalar_type("uint8");   // throws on an unknown name
//   double v = wrap(t, 300);                     // 44
#pragma once

#include <cstdint>
#include <string>

namespace strata::fuzz {

enum class ScalarType { Float32, Float64, Int32, UInt8, UInt16 };

const char *name_of(ScalarType type);
// Throws std::invalid_argument listing the valid names.
ScalarType parse_scalar_type(const std::string &name);

bool is_float(ScalarType type);
int bits_of(ScalarType type);
// The smallest and largest finite value the type holds.
double lowest_of(ScalarType type);
double highest_of(ScalarType type);

// The value an exact integer or real result takes when stored in `type`:
// integers wrap modulo 2^bits (int32 wraps too; the interpreter reports
// int32 overflow separately), float32 rounds to single precision, float64
// keeps the value.
double wrap(ScalarType type, double exact);

// Halide's integer division and modulus: a == b * euclid_div(a, b) +
// euclid_mod(a, b) with 0 <= euclid_mod(a, b) < |b|; both are 0 for b == 0.
int64_t euclid_div(int64_t a, int64_t b);
int64_t euclid_mod(int64_t a, int64_t b);

}  // namespace strata::fuzz
