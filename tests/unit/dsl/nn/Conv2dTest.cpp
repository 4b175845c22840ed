#include "strata/dsl/nn/Conv2d.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::nhwc_from_nchw;
using strata::testing::random_buffer;

namespace {

// The definition, one output element at a time, on an NCHW buffer.
double direct_conv(const Buffer<float> &in, const Buffer<float> &w, const nn::Window2d &win, int x, int y, int co,
                   int n) {
    double sum = 0;
    for (int ci = 0; ci < in.dim(2).extent(); ++ci) {
        for (int ry = 0; ry < win.kernel; ++ry) {
            for (int rx = 0; rx < win.kernel; ++rx) {
                const int sx = x * win.stride + rx * win.dilation - win.padding;
                const int sy = y * win.stride + ry * win.dilation - win.padding;
                if (sx < 0 || sy < 0 || sx >= in.dim(0).extent() || sy >= in.dim(1).extent()) continue;
                sum += double(in(sx, sy, ci, n)) * double(w(rx, ry, ci, co));
            }
        }
    }
    return sum;
}

nn::FeatureExtents nchw_extents(const Buffer<float> &in) {
    return {in.dim(0).extent(), in.dim(1).extent(), in.dim(2).extent()};
}

void check_against_loops(const nn::Window2d &win) {
    Buffer<float> in = random_buffer({11, 9, 3, 2}, -1.0f, 1.0f, 1);
    Buffer<float> w = random_buffer({win.kernel, win.kernel, 3, 4}, -1.0f, 1.0f, 2);
    Func conv = nn::conv2d(Func(in), Func(w), nchw_extents(in), win, nn::Layout::NCHW, "conv");
    const int ow = nn::output_extent(11, win), oh = nn::output_extent(9, win);
    Buffer<float> out = conv.realize({ow, oh, 4, 2});
    out.for_each_element([&](int x, int y, int co, int n) {
        CHECK(out(x, y, co, n) == doctest::Approx(direct_conv(in, w, win, x, y, co, n)).epsilon(1e-5));
    });
}

}  // namespace

TEST_CASE("conv2d NCHW: 3×3, stride 1, padding 1 matches the loops, borders included") {
    check_against_loops({3, 1, 1, 1});
}

TEST_CASE("conv2d NCHW: stride 2, padding 2, dilation 2 matches the loops") {
    check_against_loops({3, 2, 2, 2});
}

TEST_CASE("conv2d NCHW: 1×1 without padding reads only inside the input") {
    check_against_loops({1, 1, 0, 1});
}

TEST_CASE("conv2d NHWC computes the NCHW result in the other layout") {
    Buffer<float> nchw = random_buffer({8, 6, 5, 2}, -1.0f, 1.0f, 3);
    Buffer<float> nhwc = nhwc_from_nchw(nchw);
    Buffer<float> w = random_buffer({3, 3, 5, 7}, -1.0f, 1.0f, 4);
    const nn::Window2d win{3, 1, 1, 1};
    Buffer<float> expected =
        nn::conv2d(Func(nchw), Func(w), nchw_extents(nchw), win, nn::Layout::NCHW, "a").realize({8, 6, 7, 2});
    Func conv = nn::conv2d(Func(nhwc), Func(w), {8, 6, 5}, win, nn::Layout::NHWC, "b");
    Buffer<float> actual = conv.realize({7, 8, 6, 2});
    actual.for_each_element([&](int co, int x, int y, int n) {
        CHECK(actual(co, x, y, n) == doctest::Approx(expected(x, y, co, n)).epsilon(1e-5));
    });
}

TEST_CASE("conv2d names its stages: the padded input and one update over (rx, ry, rc)") {
    Buffer<float> in = random_buffer({8, 8, 2, 1}, -1.0f, 1.0f, 5);
    Buffer<float> w = random_buffer({3, 3, 2, 2}, -1.0f, 1.0f, 6);
    Func conv = nn::conv2d(Func(in), Func(w), nchw_extents(in), {3, 1, 1, 1}, nn::Layout::NCHW, "layer");
    CHECK(strata::dsl::given_name(conv) == "layer");
    CHECK(conv.num_update_definitions() == 1);
    CHECK(conv.rvars().size() == 3);
    CHECK_NOTHROW(strata::dsl::find_stage(conv, "layer_padded"));
}

TEST_CASE("conv2d refuses bad arguments, naming what is wrong") {
    Buffer<float> in(8, 8, 2, 1), w3(3, 3, 2);
    Buffer<float> w(3, 3, 2, 2);
    const nn::FeatureExtents extents{8, 8, 2};
    CHECK_THROWS_WITH(nn::conv2d(Func(in), Func(w3), extents, {}, nn::Layout::NCHW, "c"),
                      doctest::Contains("(kw, kh, ci, co)"));
    CHECK_THROWS_WITH(nn::conv2d(Func(in), Func(w), {8, 8, Expr()}, {}, nn::Layout::NCHW, "c"),
                      doctest::Contains("channel count"));
    CHECK_THROWS_WITH(nn::conv2d(Func(in), Func(w), {Expr(), Expr(), 2}, {3, 1, 1, 1}, nn::Layout::NCHW, "c"),
                      doctest::Contains("width and height"));
    CHECK_THROWS_WITH(nn::conv2d(Func(in), Func(w), extents, {3, 0, 1, 1}, nn::Layout::NCHW, "c"),
                      doctest::Contains("stride"));
    Buffer<float> image(8, 8, 2);
    CHECK_THROWS_WITH(nn::conv2d(Func(image), Func(w), extents, {}, nn::Layout::NCHW, "c"),
                      doctest::Contains("4 (NCHW"));
}
