// Interval: bounds on the values a drawn stage can hold, so that the
// drawing never builds arithmetic Halide leaves undefined (32-bit signed
// overflow) and keeps float magnitudes where a relative tolerance means
// something. Only the drawing uses it; the interpreter checks the result.
#pragma once

#include "strata/fuzz/ScalarType.h"

#include <algorithm>
#include <cmath>

namespace strata::fuzz {

struct Interval {
    double lo = 0;
    double hi = 0;

    double magnitude() const { return std::max(std::fabs(lo), std::fabs(hi)); }
};

inline Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
inline Interval add(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }
inline Interval sub(Interval a, Interval b) { return {a.lo - b.hi, a.hi - b.lo}; }
inline Interval neg(Interval a) { return {-a.hi, -a.lo}; }
inline Interval mul(Interval a, Interval b) {
    const double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}
inline Interval scale(Interval a, double c) { return mul(a, {c, c}); }
inline Interval abs_of(Interval a) {
    if (a.lo >= 0) return a;
    if (a.hi <= 0) return neg(a);
    return {0, a.magnitude()};
}
inline Interval min_of(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }
inline Interval max_of(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }
// The sum of n values from a.
inline Interval times(Interval a, double n) { return {std::min(a.lo, a.lo * n), std::max(a.hi, a.hi * n)}; }

// What the values become once stored in `type`: unsigned types wrap (any
// value of the type is then possible), the others keep the bounds.
inline Interval stored_in(ScalarType type, Interval exact) {
    if ((type == ScalarType::UInt8 || type == ScalarType::UInt16) && (exact.lo < 0 || exact.hi > highest_of(type))) {
        return {0, highest_of(type)};
    }
    return exact;
}

}  // namespace strata::fuzz
