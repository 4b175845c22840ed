#include "strata/runtime/RandomFill.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace strata::runtime;
using Halide::Runtime::Buffer;

TEST_CASE("floats land inside the range and are never zero by default") {
    Buffer<float> b(64, 64);
    Buffer<void> v(b);
    fill_uniform(v, default_range(v.type()), 3);
    bool all_inside = true;
    b.for_each_value([&](float x) { all_inside &= x >= 0.05f && x <= 1.0f; });
    CHECK(all_inside);
}

TEST_CASE("integers are drawn over the whole closed range") {
    Buffer<uint8_t> b(4096);
    Buffer<void> v(b);
    fill_uniform(v, {1, 4}, 9);
    int seen[5] = {};
    b.for_each_value([&](uint8_t x) { ++seen[std::min<int>(x, 4)]; });
    CHECK(seen[0] == 0);
    for (int i = 1; i <= 4; ++i) CHECK(seen[i] > 0);
}

TEST_CASE("the same seed gives the same contents; another seed does not") {
    Buffer<float> a(100), b(100), c(100);
    Buffer<void> va(a), vb(b), vc(c);
    fill_uniform(va, {0, 1}, 5);
    fill_uniform(vb, {0, 1}, 5);
    fill_uniform(vc, {0, 1}, 6);
    bool same = true, differs = false;
    for (int i = 0; i < 100; ++i) {
        same &= a(i) == b(i);
        differs |= a(i) != c(i);
    }
    CHECK(same);
    CHECK(differs);
}

TEST_CASE("integer ranges are clamped to the type instead of wrapping") {
    Buffer<uint8_t> b(1024);
    Buffer<void> v(b);
    fill_uniform(v, {-5, 3}, 1);  // -5 would wrap to 251 without the clamp
    int largest = 0, zeros = 0;
    b.for_each_value([&](uint8_t x) {
        largest = std::max<int>(largest, x);
        zeros += x == 0;
    });
    CHECK(largest <= 3);
    CHECK(zeros > 0);
}
