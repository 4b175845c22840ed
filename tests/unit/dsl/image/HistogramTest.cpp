#include "strata/dsl/image/Histogram.h"
#include "strata/dsl/Stages.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using namespace Halide;
namespace image = strata::dsl::image;

namespace {

Buffer<uint8_t> random_levels(int width, int height, int channels, int levels, int seed) {
    Buffer<uint8_t> b = channels > 0 ? Buffer<uint8_t>(width, height, channels) : Buffer<uint8_t>(width, height);
    std::mt19937 rng(seed);
    b.for_each_value([&](uint8_t &v) { v = uint8_t(rng() % levels); });
    return b;
}

}  // namespace

TEST_CASE("quantize cuts [lo, hi) into equal bins and clamps outliers") {
    Buffer<float> values(6);
    const float samples[] = {-0.5f, 0.0f, 0.249f, 0.25f, 0.99f, 1.5f};
    for (int i = 0; i < 6; ++i) values(i) = samples[i];
    Buffer<int> bins = image::quantize(Func(values), 0.0f, 1.0f, 4, "q").realize({6});
    const int expected[] = {0, 0, 0, 1, 3, 3};
    for (int i = 0; i < 6; ++i) CHECK(bins(i) == expected[i]);
}

TEST_CASE("histogram counts every pixel of the region in its bin") {
    Buffer<uint8_t> in = random_levels(37, 23, 0, 16, 1);
    // A region that leaves out a border, and a bin count that clamps levels 12…15 into bin 11.
    const int bins = 12;
    Buffer<int> hist =
        image::histogram(Func(in), bins, {{2, 30}, {1, 20}}, "h").realize({bins});
    std::vector<int> expected(bins, 0);
    for (int y = 1; y < 21; ++y)
        for (int x = 2; x < 32; ++x) ++expected[std::min<int>(in(x, y), bins - 1)];
    for (int b = 0; b < bins; ++b) CHECK(hist(b) == expected[b]);
}

TEST_CASE("channels pass through the histogram: one histogram per channel") {
    Buffer<uint8_t> in = random_levels(16, 9, 3, 8, 2);
    Buffer<int> hist = image::histogram(Func(in), 8, {{0, 16}, {0, 9}}, "hc").realize({8, 3});
    for (int c = 0; c < 3; ++c) {
        std::vector<int> expected(8, 0);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 16; ++x) ++expected[in(x, y, c)];
        for (int b = 0; b < 8; ++b) CHECK(hist(b, c) == expected[b]);
    }
}

TEST_CASE("cumulative is the inclusive prefix sum over bins") {
    Buffer<int> hist(10, 2);
    std::mt19937 rng(3);
    hist.for_each_value([&](int &v) { v = int(rng() % 100); });
    Buffer<int> cdf = image::cumulative(Func(hist), 10, "cdf").realize({10, 2});
    for (int c = 0; c < 2; ++c) {
        int sum = 0;
        for (int b = 0; b < 10; ++b) {
            sum += hist(b, c);
            CHECK(cdf(b, c) == sum);
        }
    }
}

TEST_CASE("histogram_equalize maps each level through the normalized cdf") {
    Buffer<uint8_t> in = random_levels(24, 18, 0, 64, 4);
    const int bins = 64, pixels = 24 * 18;
    Func eq = image::histogram_equalize(Func(in), bins, {{0, 24}, {0, 18}}, "eq");
    CHECK_NOTHROW(strata::dsl::find_stage(eq, "eq_hist"));
    CHECK_NOTHROW(strata::dsl::find_stage(eq, "eq_cdf"));
    Buffer<float> out = eq.realize({24, 18});
    std::vector<int> cdf(bins, 0);
    in.for_each_value([&](uint8_t v) { ++cdf[v]; });
    for (int b = 1; b < bins; ++b) cdf[b] += cdf[b - 1];
    out.for_each_element([&](int x, int y) {
        CHECK(out(x, y) == doctest::Approx(float(cdf[in(x, y)]) * float(bins - 1) / float(pixels)).epsilon(1e-6));
    });
    // The largest level maps to the top of the range.
    float top = 0;
    out.for_each_value([&](float v) { top = std::max(top, v); });
    CHECK(top == doctest::Approx(bins - 1));
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Buffer<uint8_t> levels(8, 8);
    Buffer<float> values(8, 8);
    CHECK_THROWS_WITH(image::histogram(Func(levels), 0, {{0, 8}, {0, 8}}, "none"), doctest::Contains("one bin"));
    CHECK_THROWS_WITH(image::histogram(Func(values), 4, {{0, 8}, {0, 8}}, "flt"), doctest::Contains("quantize"));
    CHECK_THROWS_WITH(image::histogram(Func(levels), 4, {{0, 8}}, "short"), doctest::Contains("region"));
    CHECK_THROWS_WITH(image::quantize(Func(values), 1.0f, 1.0f, 4, "flat"), doctest::Contains("empty"));
    Func one_d("one_d");
    Var x;
    one_d(x) = 1;
    CHECK_THROWS_WITH(image::histogram(one_d, 4, {{0, 8}, {0, 8}}, "h"), doctest::Contains("one_d"));
    Buffer<int> cdf(4, 2);
    CHECK_THROWS_WITH(image::equalize(Func(levels), Func(cdf), 4, 64, "mismatch"), doctest::Contains("one dimension"));
}
