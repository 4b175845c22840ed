#include "strata/dsl/nn/Upsample.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace Halide;
namespace nn = strata::dsl::nn;

namespace {

Buffer<float> random_buffer(const std::vector<int> &extents, int seed) {
    Buffer<float> b(extents);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    b.for_each_value([&](float &v) { v = dist(rng); });
    return b;
}

// PyTorch's align_corners=False source coordinate and interpolation, in 1-D.
void source_taps(int o, int extent, int &i0, int &i1, double &w1) {
    const double s = std::max((o + 0.5) / 2.0 - 0.5, 0.0);
    i0 = int(std::floor(s));
    i1 = std::min(i0 + 1, extent - 1);
    w1 = s - i0;
}

}  // namespace

TEST_CASE("upsample_bilinear2x matches PyTorch's bilinear, align_corners=False") {
    const int w = 5, h = 4;
    Buffer<float> in = random_buffer({w, h, 2, 1}, 1);
    Buffer<float> out =
        nn::upsample_bilinear2x(Func(in), {w, h, {}}, nn::Layout::NCHW, "up").realize({2 * w, 2 * h, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) {
        int x0, x1, y0, y1;
        double wx, wy;
        source_taps(x, w, x0, x1, wx);
        source_taps(y, h, y0, y1, wy);
        const double top = (1 - wx) * in(x0, y0, c, n) + wx * in(x1, y0, c, n);
        const double bottom = (1 - wx) * in(x0, y1, c, n) + wx * in(x1, y1, c, n);
        CHECK(out(x, y, c, n) == doctest::Approx((1 - wy) * top + wy * bottom).epsilon(1e-5).scale(1e-2));
    });
}

TEST_CASE("upsample_bilinear2x in NHWC equals NCHW; a constant map stays constant") {
    Buffer<float> nchw = random_buffer({3, 3, 2, 1}, 2);
    Buffer<float> nhwc(2, 3, 3, 1);
    nhwc.for_each_element([&](int c, int x, int y, int n) { nhwc(c, x, y, n) = nchw(x, y, c, n); });
    Buffer<float> a = nn::upsample_bilinear2x(Func(nchw), {3, 3, {}}, nn::Layout::NCHW, "a").realize({6, 6, 2, 1});
    Buffer<float> b = nn::upsample_bilinear2x(Func(nhwc), {3, 3, {}}, nn::Layout::NHWC, "b").realize({2, 6, 6, 1});
    a.for_each_element([&](int x, int y, int c, int n) { CHECK(a(x, y, c, n) == b(c, x, y, n)); });

    Buffer<float> flat(4, 4, 1, 1);
    flat.fill(0.3f);
    Buffer<float> up = nn::upsample_bilinear2x(Func(flat), {4, 4, {}}, nn::Layout::NCHW, "flat").realize({8, 8, 1, 1});
    up.for_each_value([](float v) { CHECK(v == doctest::Approx(0.3f)); });
}

TEST_CASE("upsample_nearest2x repeats each pixel 2 × 2") {
    Buffer<float> in = random_buffer({3, 2, 2, 1}, 3);
    Buffer<float> out = nn::upsample_nearest2x(Func(in), nn::Layout::NCHW, "near").realize({6, 4, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) { CHECK(out(x, y, c, n) == in(x / 2, y / 2, c, n)); });
}

TEST_CASE("upsample_bilinear2x needs the input's extents") {
    Buffer<float> in(4, 4, 1, 1);
    CHECK_THROWS_WITH(nn::upsample_bilinear2x(Func(in), {}, nn::Layout::NCHW, "u"),
                      doctest::Contains("width and height"));
}
