#include "strata/dsl/nn/BatchNorm.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::nhwc_from_nchw;
using strata::testing::random_buffer;

TEST_CASE("batch_norm normalizes each channel with its running statistics, in either layout") {
    const int channels = 5;
    Buffer<float> mean = random_buffer({channels}, -1.0f, 1.0f, 1), var = random_buffer({channels}, 0.2f, 2.0f, 2);
    Buffer<float> gamma = random_buffer({channels}, 0.5f, 1.5f, 3), beta = random_buffer({channels}, -1.0f, 1.0f, 4);
    Buffer<float> nchw = random_buffer({6, 4, channels, 2}, -2.0f, 2.0f, 5);
    const auto expected = [&](float x, int c) {
        return (x - double(mean(c))) / std::sqrt(double(var(c)) + 1e-5) * gamma(c) + beta(c);
    };
    Buffer<float> a = nn::batch_norm(Func(nchw), Func(mean), Func(var), Func(gamma), Func(beta), 1e-5f,
                                     nn::Layout::NCHW, "a")
                          .realize({6, 4, channels, 2});
    a.for_each_element([&](int x, int y, int c, int n) {
        CHECK(a(x, y, c, n) == doctest::Approx(expected(nchw(x, y, c, n), c)).epsilon(1e-5).scale(1e-2));
    });

    Buffer<float> nhwc = nhwc_from_nchw(nchw);
    Buffer<float> b = nn::batch_norm(Func(nhwc), Func(mean), Func(var), Func(gamma), Func(beta), 1e-5f,
                                     nn::Layout::NHWC, "b")
                          .realize({channels, 6, 4, 2});
    b.for_each_element([&](int c, int x, int y, int n) {
        CHECK(b(c, x, y, n) == doctest::Approx(a(x, y, c, n)).epsilon(1e-6).scale(1e-2));
    });
}

TEST_CASE("batch_norm names its per-channel stages and refuses bad parameters") {
    Buffer<float> in(4, 4, 3, 1), p(3), p2(3, 1);
    Func bn = nn::batch_norm(Func(in), Func(p), Func(p), Func(p), Func(p), 1e-5f, nn::Layout::NCHW, "bn_named");
    CHECK_NOTHROW(strata::dsl::find_stage(bn, "bn_named_scale"));
    CHECK_NOTHROW(strata::dsl::find_stage(bn, "bn_named_shift"));
    CHECK_THROWS_WITH(nn::batch_norm(Func(in), Func(p), Func(p2), Func(p), Func(p), 1e-5f, nn::Layout::NCHW, "bn"),
                      doctest::Contains("variance"));
    CHECK_THROWS_WITH(nn::batch_norm(Func(in), Func(p), Func(p), Func(p), Func(p), -1.0f, nn::Layout::NCHW, "bn"),
                      doctest::Contains("epsilon"));
}
