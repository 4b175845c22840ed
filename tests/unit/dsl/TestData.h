// TestData: the inputs the operator tests realize their pipelines on —
// seeded random buffers and the NHWC copy of an NCHW tensor — so that a test
// states only its sizes, value ranges and seeds, and the same arguments give
// the same buffer in every test and on every run.
//
// Example:
//   Halide::Buffer<float> in = strata::testing::random_buffer({11, 9, 3, 2}, -1.0f, 1.0f, 1);
//   Halide::Buffer<float> nhwc = strata::testing::nhwc_from_nchw(in);  // (3, 11, 9, 2)
//   Halide::Buffer<uint16_t> raw = strata::testing::random_integers<uint16_t>({24, 16}, 0, 1023, 2);
#pragma once

#include "Halide.h"

#include <random>
#include <vector>

namespace strata::testing {

// Values drawn uniformly from [lo, hi).
inline Halide::Buffer<float> random_buffer(const std::vector<int> &extents, float lo, float hi, int seed) {
    Halide::Buffer<float> b(extents);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    b.for_each_value([&](float &v) { v = dist(rng); });
    return b;
}

// Integers drawn uniformly from [lo, hi], stored as T (an integer or a
// float type: a float image of whole levels makes comparisons exact).
template <typename T>
Halide::Buffer<T> random_integers(const std::vector<int> &extents, int lo, int hi, int seed) {
    Halide::Buffer<T> b(extents);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    b.for_each_value([&](T &v) { v = T(dist(rng)); });
    return b;
}

// The same tensor, (w, h, c, n) reordered to (c, w, h, n).
inline Halide::Buffer<float> nhwc_from_nchw(const Halide::Buffer<float> &nchw) {
    Halide::Buffer<float> nhwc(nchw.dim(2).extent(), nchw.dim(0).extent(), nchw.dim(1).extent(),
                               nchw.dim(3).extent());
    nhwc.for_each_element([&](int c, int x, int y, int n) { nhwc(c, x, y, n) = nchw(x, y, c, n); });
    return nhwc;
}

}  // namespace strata::testing
