#include "strata/dsl/image/MinMaxFilter.h"
#include "strata/dsl/Stages.h"

#include "TestData.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_integers;
using image::WindowMethod;

namespace {

int clamp_to(int v, int extent) {
    return std::clamp(v, 0, extent - 1);
}

// The window extremum along x (dim 0) or y (dim 1) of a 2-D image with its edge repeated.
template <typename T, typename Op>
T window_1d(const Buffer<T> &in, int x, int y, int dim, int radius, Op op) {
    T best = in(clamp_to(x, in.width()), clamp_to(y, in.height()));
    for (int d = -radius; d <= radius; ++d) {
        const int sx = dim == 0 ? x + d : x, sy = dim == 1 ? y + d : y;
        best = op(best, in(clamp_to(sx, in.width()), clamp_to(sy, in.height())));
    }
    return best;
}

const WindowMethod kMethods[] = {WindowMethod::Direct, WindowMethod::Running};

}  // namespace

TEST_CASE("max_filter_1d and min_filter_1d match the plain window loop, including below zero") {
    Buffer<float> in = random_integers<float>({23, 17}, 0, 255, 1);
    Func clamped = BoundaryConditions::repeat_edge(in);
    for (WindowMethod method : kMethods) {
        for (int dim : {0, 1}) {
            for (int radius : {1, 9}) {
                CAPTURE(int(method));
                CAPTURE(dim);
                CAPTURE(radius);
                // A region that starts below zero exercises the block
                // arithmetic of the running method on negative coordinates.
                Buffer<float> max_out(30, 24), min_out(30, 24);
                max_out.set_min(-4, -3);
                min_out.set_min(-4, -3);
                Pipeline both({image::max_filter_1d(clamped, dim, radius, "mx", method),
                               image::min_filter_1d(clamped, dim, radius, "mn", method)});
                both.realize({max_out, min_out});
                max_out.for_each_element([&](int x, int y) {
                    const float hi = window_1d(in, x, y, dim, radius, [](float a, float b) { return std::max(a, b); });
                    const float lo = window_1d(in, x, y, dim, radius, [](float a, float b) { return std::min(a, b); });
                    CHECK(max_out(x, y) == hi);
                    CHECK(min_out(x, y) == lo);
                });
            }
        }
    }
}

TEST_CASE("the square max_filter is the (2r+1)^2 window maximum and keeps the input type") {
    Buffer<uint8_t> in = random_integers<uint8_t>({31, 19}, 0, 255, 2);
    Func clamped = BoundaryConditions::repeat_edge(in);
    const int radius = 3;
    for (WindowMethod method : kMethods) {
        CHECK(image::max_filter(clamped, radius, "typed", method).types()[0] == UInt(8));
    }
    // Only the running method is realized here: JIT-compiling the direct
    // method's 8-bit code takes seconds, and the float tests cover it.
    Func f = image::max_filter(clamped, radius, "dilate", WindowMethod::Running);
    Buffer<uint8_t> out = f.realize({31, 19});
    out.for_each_element([&](int x, int y) {
        uint8_t expected = 0;
        for (int dy = -radius; dy <= radius; ++dy)
            for (int dx = -radius; dx <= radius; ++dx)
                expected = std::max(expected, in(clamp_to(x + dx, 31), clamp_to(y + dy, 19)));
        CHECK(int(out(x, y)) == int(expected));
    });
}

TEST_CASE("the square min_filter is the (2r+1)^2 window minimum") {
    Buffer<float> in = random_integers<float>({20, 20}, 0, 255, 3);
    Func clamped = BoundaryConditions::repeat_edge(in);
    const int radius = 2;
    for (WindowMethod method : kMethods) {
        Buffer<float> out = image::min_filter(clamped, radius, "erode", method).realize({20, 20});
        out.for_each_element([&](int x, int y) {
            float expected = 1e9f;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx)
                    expected = std::min(expected, in(clamp_to(x + dx, 20), clamp_to(y + dy, 20)));
            CHECK(out(x, y) == expected);
        });
    }
}

TEST_CASE("the running method names its scans and channels pass through") {
    Buffer<float> in = random_integers<float>({16, 12, 3}, 0, 255, 4);
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func f = image::max_filter(clamped, 4, "mf", WindowMethod::Running);
    for (const char *stage : {"mf_y", "mf_y_prefix", "mf_y_suffix", "mf_prefix", "mf_suffix"}) {
        CHECK_NOTHROW(strata::dsl::find_stage(f, stage));
    }
    Buffer<float> out = f.realize({16, 12, 3});
    out.for_each_element([&](int x, int y, int c) {
        float expected = 0;
        for (int dy = -4; dy <= 4; ++dy)
            for (int dx = -4; dx <= 4; ++dx)
                expected = std::max(expected, in(clamp_to(x + dx, 16), clamp_to(y + dy, 12), c));
        CHECK(out(x, y, c) == expected);
    });
}

TEST_CASE("radius 0 is the identity") {
    Buffer<float> in = random_integers<float>({8, 8}, 0, 255, 5);
    Buffer<float> out = image::max_filter(Func(in), 0, "same", WindowMethod::Running).realize({8, 8});
    out.for_each_element([&](int x, int y) { CHECK(out(x, y) == in(x, y)); });
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Buffer<float> in(8, 8);
    CHECK_THROWS_WITH(image::max_filter(Func(in), -1, "neg"), doctest::Contains("radius must be non-negative"));
    CHECK_THROWS_WITH(image::min_filter_1d(Func(in), 2, 1, "deep"), doctest::Contains("min_filter_1d"));
    Func one_d("one_d");
    Var x;
    one_d(x) = 1.0f;
    CHECK_THROWS_WITH(image::max_filter(one_d, 1, "flat"), doctest::Contains("one_d"));
    Func pair("pair");
    pair(x, Var("y")) = Tuple(1.0f, 2.0f);
    CHECK_THROWS_WITH(image::max_filter_1d(pair, 0, 1, "tuple"), doctest::Contains("outputs"));
}
