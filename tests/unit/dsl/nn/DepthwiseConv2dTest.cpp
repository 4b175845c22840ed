#include "strata/dsl/nn/DepthwiseConv2d.h"

#include "TestData.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::nhwc_from_nchw;
using strata::testing::random_buffer;

namespace {

// The definition on an NHWC buffer, one output element at a time.
double direct(const Buffer<float> &in, const Buffer<float> &w, const nn::Window2d &win, int c, int x, int y, int n) {
    double sum = 0;
    for (int ry = 0; ry < win.kernel; ++ry) {
        for (int rx = 0; rx < win.kernel; ++rx) {
            const int sx = x * win.stride + rx * win.dilation - win.padding;
            const int sy = y * win.stride + ry * win.dilation - win.padding;
            if (sx < 0 || sy < 0 || sx >= in.dim(1).extent() || sy >= in.dim(2).extent()) continue;
            sum += double(in(c, sx, sy, n)) * double(w(rx, ry, c));
        }
    }
    return sum;
}

void check_nhwc(const nn::Window2d &win) {
    Buffer<float> in = random_buffer({5, 10, 9, 2}, -1.0f, 1.0f, 1);
    Buffer<float> w = random_buffer({win.kernel, win.kernel, 5}, -1.0f, 1.0f, 2);
    Func dw = nn::depthwise_conv2d(Func(in), Func(w), {10, 9, {}}, win, nn::Layout::NHWC, "dw");
    Buffer<float> out = dw.realize({5, nn::output_extent(10, win), nn::output_extent(9, win), 2});
    out.for_each_element([&](int c, int x, int y, int n) {
        CHECK(out(c, x, y, n) == doctest::Approx(direct(in, w, win, c, x, y, n)).epsilon(1e-5));
    });
}

}  // namespace

TEST_CASE("depthwise_conv2d NHWC: 3×3, stride 1, padding 1 matches the loops, borders included") {
    check_nhwc({3, 1, 1, 1});
}

TEST_CASE("depthwise_conv2d NHWC: stride 2, dilation 2 and a 5×5 kernel match the loops") {
    check_nhwc({3, 2, 1, 2});
    check_nhwc({5, 1, 2, 1});
}

TEST_CASE("depthwise_conv2d NCHW equals NHWC, and each channel sees only its own kernel") {
    Buffer<float> nchw = random_buffer({7, 6, 3, 1}, -1.0f, 1.0f, 3);
    Buffer<float> nhwc = nhwc_from_nchw(nchw);
    Buffer<float> w(3, 3, 3);
    w.fill(0.0f);
    w(1, 1, 0) = 1.0f;  // channel 0: identity
    w(0, 1, 1) = 2.0f;  // channel 1: twice the left neighbour
    w(1, 2, 2) = -1.0f; // channel 2: minus the pixel below
    Buffer<float> a = nn::depthwise_conv2d(Func(nchw), Func(w), {7, 6, {}}, {3, 1, 1, 1}, nn::Layout::NCHW, "a")
                          .realize({7, 6, 3, 1});
    Buffer<float> b = nn::depthwise_conv2d(Func(nhwc), Func(w), {7, 6, {}}, {3, 1, 1, 1}, nn::Layout::NHWC, "b")
                          .realize({3, 7, 6, 1});
    a.for_each_element([&](int x, int y, int c, int n) { CHECK(a(x, y, c, n) == b(c, x, y, n)); });
    CHECK(a(3, 2, 0, 0) == nchw(3, 2, 0, 0));
    CHECK(a(3, 2, 1, 0) == 2.0f * nchw(2, 2, 1, 0));
    CHECK(a(0, 2, 1, 0) == 0.0f);
    CHECK(a(3, 2, 2, 0) == -nchw(3, 3, 2, 0));
}

TEST_CASE("depthwise_conv2d refuses 4-D weights and missing spatial extents") {
    Buffer<float> in(4, 8, 8, 1), w4(3, 3, 4, 1), w(3, 3, 4);
    CHECK_THROWS_WITH(nn::depthwise_conv2d(Func(in), Func(w4), {8, 8, {}}, {}, nn::Layout::NHWC, "d"),
                      doctest::Contains("(kw, kh, c)"));
    CHECK_THROWS_WITH(nn::depthwise_conv2d(Func(in), Func(w), {}, {3, 1, 1, 1}, nn::Layout::NHWC, "d"),
                      doctest::Contains("width and height"));
}
