#include "strata/dsl/nn/LayerNorm.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::random_buffer;

TEST_CASE("layer_norm normalizes each token over its features, then scales and shifts") {
    const int features = 37, tokens = 6;
    Buffer<float> in = random_buffer({features, tokens}, -3.0f, 5.0f, 1);
    Buffer<float> gamma = random_buffer({features}, 0.5f, 1.5f, 2), beta = random_buffer({features}, -1.0f, 1.0f, 3);
    Buffer<float> out =
        nn::layer_norm(Func(in), Func(gamma), Func(beta), features, 1e-5f, "ln").realize({features, tokens});
    for (int t = 0; t < tokens; ++t) {
        double mean = 0, var = 0;
        for (int f = 0; f < features; ++f) mean += in(f, t);
        mean /= features;
        for (int f = 0; f < features; ++f) var += (in(f, t) - mean) * (in(f, t) - mean);
        var /= features;
        for (int f = 0; f < features; ++f) {
            const double expected = (in(f, t) - mean) / std::sqrt(var + 1e-5) * gamma(f) + beta(f);
            // float32 rounding of x - mean is absolute (~|x| 2^-24), hence the 1e-6 term.
            CHECK(std::abs(out(f, t) - expected) <= 1e-5 * std::abs(expected) + 1e-6);
        }
    }
}

TEST_CASE("layer_norm stays accurate when the mean dwarfs the spread (two-pass variance)") {
    // Features 10000 + {-1, +1}: the one-pass E[x²] - E[x]² loses every
    // significant digit in float32; the centered form gives ±1 exactly.
    const int features = 64;
    Buffer<float> in(features, 2);
    in.for_each_element([&](int f, int t) { in(f, t) = 10000.0f + float(t + 1) * ((f % 2) ? 1.0f : -1.0f); });
    Buffer<float> ones(features), zeros(features);
    ones.fill(1.0f);
    zeros.fill(0.0f);
    Buffer<float> out = nn::layer_norm(Func(in), Func(ones), Func(zeros), features, 1e-6f, "ln").realize({features, 2});
    out.for_each_element(
        [&](int f, int t) { CHECK(out(f, t) == doctest::Approx((f % 2) ? 1.0 : -1.0).epsilon(1e-4)); });
}

TEST_CASE("layer_norm works on 3-D tensors and names its stages") {
    Buffer<float> in = random_buffer({8, 3, 2}, 0.0f, 1.0f, 4);
    Buffer<float> g(8), b(8);
    g.fill(2.0f);
    b.fill(0.5f);
    Func ln = nn::layer_norm(Func(in), Func(g), Func(b), 8, 1e-5f, "ln3");
    Buffer<float> out = ln.realize({8, 3, 2});
    for (int n = 0; n < 2; ++n) {
        for (int t = 0; t < 3; ++t) {
            double total = 0;
            for (int f = 0; f < 8; ++f) total += out(f, t, n);
            CHECK(total / 8 == doctest::Approx(0.5).epsilon(1e-5));  // mean of 2 z + 0.5 is 0.5
        }
    }
    for (const char *stage : {"ln3_sum", "ln3_mean", "ln3_centered", "ln3_sq_sum", "ln3_inv_std"}) {
        CHECK_NOTHROW(strata::dsl::find_stage(ln, stage));
    }
}

TEST_CASE("layer_norm refuses bad parameters") {
    Buffer<float> in(8, 2), g(8), g2(8, 1);
    CHECK_THROWS_WITH(nn::layer_norm(Func(in), Func(g2), Func(g), 8, 1e-5f, "ln"), doctest::Contains("1-D"));
    CHECK_THROWS_WITH(nn::layer_norm(Func(in), Func(g), Func(g), 8, 0.0f, "ln"), doctest::Contains("epsilon"));
    CHECK_THROWS_WITH(nn::layer_norm(Func(in), Func(g), Func(g), Expr(), 1e-5f, "ln"),
                      doctest::Contains("feature count"));
}
