#include "strata/dsl/nn/Softmax.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::random_buffer;

TEST_CASE("softmax along the innermost axis matches the textbook formula") {
    Buffer<float> in = random_buffer({13, 5}, -4.0f, 4.0f, 1);
    Buffer<float> out = nn::softmax(Func(in), 0, 13, "p").realize({13, 5});
    for (int r = 0; r < 5; ++r) {
        double total = 0;
        for (int f = 0; f < 13; ++f) total += std::exp(double(in(f, r)));
        for (int f = 0; f < 13; ++f) CHECK(out(f, r) == doctest::Approx(std::exp(double(in(f, r))) / total));
    }
}

TEST_CASE("softmax along an outer axis of a 3-D tensor") {
    Buffer<float> in = random_buffer({3, 7, 2}, -2.0f, 2.0f, 2);
    Buffer<float> out = nn::softmax(Func(in), 1, 7, "p").realize({3, 7, 2});
    for (int b = 0; b < 2; ++b) {
        for (int x = 0; x < 3; ++x) {
            double total = 0;
            for (int j = 0; j < 7; ++j) total += std::exp(double(in(x, j, b)));
            for (int j = 0; j < 7; ++j) {
                CHECK(out(x, j, b) == doctest::Approx(std::exp(double(in(x, j, b))) / total));
            }
        }
    }
}

TEST_CASE("softmax is max-subtracted: huge logits give finite, exact results") {
    Buffer<float> in(4, 1);
    in(0, 0) = 1000.0f;
    in(1, 0) = 999.0f;
    in(2, 0) = -1000.0f;
    in(3, 0) = 1000.0f;
    Buffer<float> out = nn::softmax(Func(in), 0, 4, "p").realize({4, 1});
    const double e = std::exp(-1.0), total = 2.0 + e;
    CHECK(out(0, 0) == doctest::Approx(1.0 / total));
    CHECK(out(1, 0) == doctest::Approx(e / total));
    CHECK(out(2, 0) == 0.0f);
    CHECK(out(3, 0) == doctest::Approx(1.0 / total));
}

TEST_CASE("entries at the lowest float are masked out exactly") {
    Buffer<float> in(3, 1);
    in(0, 0) = 0.5f;
    in(1, 0) = std::numeric_limits<float>::lowest();
    in(2, 0) = 0.5f;
    Buffer<float> out = nn::softmax(Func(in), 0, 3, "p").realize({3, 1});
    CHECK(out(1, 0) == 0.0f);
    CHECK(out(0, 0) == doctest::Approx(0.5));
}

TEST_CASE("softmax names its stages and refuses bad arguments") {
    Buffer<float> in(4, 2);
    Func p = nn::softmax(Func(in), 0, 4, "probs");
    for (const char *stage : {"probs_max", "probs_exp", "probs_sum"}) CHECK_NOTHROW(strata::dsl::find_stage(p, stage));
    CHECK(strata::dsl::find_stage(p, "probs_max").dimensions() == 1);
    CHECK_THROWS_WITH(nn::softmax(Func(in), 2, 4, "p"), doctest::Contains("axis 2"));
    CHECK_THROWS_WITH(nn::softmax(Func(in), 0, Expr(), "p"), doctest::Contains("reduction extent"));
}
