#include "strata/dsl/nn/Upsample.h"

#include "TestData.h"
#include "reference/BilinearUpsample2x.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::nhwc_from_nchw;
using strata::testing::random_buffer;

TEST_CASE("upsample_bilinear2x matches PyTorch's bilinear, align_corners=False") {
    const int w = 5, h = 4;
    Buffer<float> in = random_buffer({w, h, 2, 1}, -1.0f, 1.0f, 1);
    Buffer<float> out =
        nn::upsample_bilinear2x(Func(in), {w, h, {}}, nn::Layout::NCHW, "up").realize({2 * w, 2 * h, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) {
        const auto plane = [&](int sx, int sy) { return in(sx, sy, c, n); };
        const double expected = strata::testing::bilinear_upsample2x_at(plane, w, h, x, y);
        CHECK(out(x, y, c, n) == doctest::Approx(expected).epsilon(1e-5).scale(1e-2));
    });
}

TEST_CASE("upsample_bilinear2x in NHWC equals NCHW; a constant map stays constant") {
    Buffer<float> nchw = random_buffer({3, 3, 2, 1}, -1.0f, 1.0f, 2);
    Buffer<float> nhwc = nhwc_from_nchw(nchw);
    Buffer<float> a = nn::upsample_bilinear2x(Func(nchw), {3, 3, {}}, nn::Layout::NCHW, "a").realize({6, 6, 2, 1});
    Buffer<float> b = nn::upsample_bilinear2x(Func(nhwc), {3, 3, {}}, nn::Layout::NHWC, "b").realize({2, 6, 6, 1});
    a.for_each_element([&](int x, int y, int c, int n) { CHECK(a(x, y, c, n) == b(c, x, y, n)); });

    Buffer<float> flat(4, 4, 1, 1);
    flat.fill(0.3f);
    Buffer<float> up = nn::upsample_bilinear2x(Func(flat), {4, 4, {}}, nn::Layout::NCHW, "flat").realize({8, 8, 1, 1});
    up.for_each_value([](float v) { CHECK(v == doctest::Approx(0.3f)); });
}

TEST_CASE("upsample_nearest2x repeats each pixel 2 × 2") {
    Buffer<float> in = random_buffer({3, 2, 2, 1}, -1.0f, 1.0f, 3);
    Buffer<float> out = nn::upsample_nearest2x(Func(in), nn::Layout::NCHW, "near").realize({6, 4, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) { CHECK(out(x, y, c, n) == in(x / 2, y / 2, c, n)); });
}

TEST_CASE("upsample_bilinear2x needs the input's extents") {
    Buffer<float> in(4, 4, 1, 1);
    CHECK_THROWS_WITH(nn::upsample_bilinear2x(Func(in), {}, nn::Layout::NCHW, "u"),
                      doctest::Contains("width and height"));
}
