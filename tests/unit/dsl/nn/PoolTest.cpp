#include "strata/dsl/nn/Pool.h"

#include "TestData.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::nhwc_from_nchw;
using strata::testing::random_buffer;

namespace {

// Max or mean (over kernel², padding counted as zero) of one NCHW window.
double direct_pool(const Buffer<float> &in, const nn::Window2d &w, bool is_max, int x, int y, int c, int n) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int ry = 0; ry < w.kernel; ++ry) {
        for (int rx = 0; rx < w.kernel; ++rx) {
            const int sx = x * w.stride + rx * w.dilation - w.padding, sy = y * w.stride + ry * w.dilation - w.padding;
            if (sx < 0 || sy < 0 || sx >= in.dim(0).extent() || sy >= in.dim(1).extent()) continue;
            best = std::max(best, double(in(sx, sy, c, n)));
            sum += in(sx, sy, c, n);
        }
    }
    return is_max ? best : sum / (w.kernel * w.kernel);
}

void check_pool(bool is_max, const nn::Window2d &w) {
    Buffer<float> in = random_buffer({9, 7, 3, 2}, -1.0f, 1.0f, 1);
    const nn::FeatureExtents extents{9, 7, {}};
    Func pool = is_max ? nn::max_pool(Func(in), extents, w, nn::Layout::NCHW, "mp")
                       : nn::avg_pool(Func(in), extents, w, nn::Layout::NCHW, "ap");
    Buffer<float> out = pool.realize({nn::output_extent(9, w), nn::output_extent(7, w), 3, 2});
    out.for_each_element([&](int x, int y, int c, int n) {
        CHECK(out(x, y, c, n) == doctest::Approx(direct_pool(in, w, is_max, x, y, c, n)).epsilon(1e-6));
    });
}

}  // namespace

TEST_CASE("max_pool 2×2 stride 2 halves the map, keeping each window's maximum") {
    check_pool(true, {2, 2, 0, 1});
}

TEST_CASE("max_pool 3×3 stride 2 padding 1: the padding never wins, even over negative inputs") {
    check_pool(true, {3, 2, 1, 1});
}

TEST_CASE("avg_pool 2×2 and 3×3 padded (padding counted in the divisor)") {
    check_pool(false, {2, 2, 0, 1});
    check_pool(false, {3, 1, 1, 1});
}

TEST_CASE("pooling in NHWC equals pooling in NCHW") {
    Buffer<float> nchw = random_buffer({8, 6, 3, 1}, -1.0f, 1.0f, 2);
    Buffer<float> nhwc = nhwc_from_nchw(nchw);
    const nn::Window2d w{2, 2, 0, 1};
    Buffer<float> a = nn::max_pool(Func(nchw), {}, w, nn::Layout::NCHW, "a").realize({4, 3, 3, 1});
    Buffer<float> b = nn::max_pool(Func(nhwc), {}, w, nn::Layout::NHWC, "b").realize({3, 4, 3, 1});
    a.for_each_element([&](int x, int y, int c, int n) { CHECK(a(x, y, c, n) == b(c, x, y, n)); });
}

TEST_CASE("pooling refuses a padded window without the input's extents") {
    Buffer<float> in(8, 8, 1, 1);
    CHECK_THROWS_WITH(nn::max_pool(Func(in), {}, {3, 2, 1, 1}, nn::Layout::NCHW, "p"),
                      doctest::Contains("width and height"));
    CHECK_THROWS_WITH(nn::avg_pool(Func(in), {}, {2, 0, 0, 1}, nn::Layout::NCHW, "p"), doctest::Contains("stride"));
}
