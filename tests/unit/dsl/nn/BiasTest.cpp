#include "strata/dsl/nn/Bias.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;

TEST_CASE("bias_add adds the bias of each element's channel, in either layout") {
    Buffer<float> bias(3);
    for (int c = 0; c < 3; ++c) bias(c) = float(10 * (c + 1));
    Buffer<float> nchw(4, 2, 3, 2);
    nchw.for_each_element([&](int x, int y, int c, int n) { nchw(x, y, c, n) = float(x + 2 * y + 5 * n + c); });
    Buffer<float> a = nn::bias_add(Func(nchw), Func(bias), nn::Layout::NCHW, "a").realize({4, 2, 3, 2});
    a.for_each_element([&](int x, int y, int c, int n) { CHECK(a(x, y, c, n) == nchw(x, y, c, n) + bias(c)); });

    Buffer<float> nhwc(3, 4, 2, 1);
    nhwc.for_each_element([&](int c, int x, int y, int) { nhwc(c, x, y, 0) = float(x - y + 7 * c); });
    Buffer<float> b = nn::bias_add(Func(nhwc), Func(bias), nn::Layout::NHWC, "b").realize({3, 4, 2, 1});
    b.for_each_element([&](int c, int x, int y, int n) { CHECK(b(c, x, y, n) == nhwc(c, x, y, n) + bias(c)); });
}

TEST_CASE("bias_add along an explicit axis of a matrix") {
    Buffer<float> bias(5), m(5, 3);
    bias.for_each_element([&](int f) { bias(f) = float(f) * 0.5f; });
    m.for_each_element([&](int f, int t) { m(f, t) = float(f * t); });
    Buffer<float> out = nn::bias_add(Func(m), Func(bias), 0, "dense").realize({5, 3});
    out.for_each_element([&](int f, int t) { CHECK(out(f, t) == m(f, t) + bias(f)); });
}

TEST_CASE("bias_add refuses a bad axis or bias") {
    Buffer<float> m(5, 3), bias(5), bias2(5, 1);
    CHECK_THROWS_WITH(nn::bias_add(Func(m), Func(bias), 2, "d"), doctest::Contains("axis 2"));
    CHECK_THROWS_WITH(nn::bias_add(Func(m), Func(bias2), 0, "d"), doctest::Contains("1-D"));
    CHECK_THROWS_WITH(nn::bias_add(Func(m), Func(bias), nn::Layout::NCHW, "d"), doctest::Contains("4 (NCHW"));
}
