#include "strata/dsl/image/Convolution.h"

#include <doctest/doctest.h>

#include <random>

using namespace Halide;
namespace image = strata::dsl::image;

namespace {

Buffer<float> random_image(int width, int height, int seed) {
    Buffer<float> b(width, height);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(0.1f, 1.0f);
    b.for_each_value([&](float &v) { v = dist(rng); });
    return b;
}

}  // namespace

TEST_CASE("convolve3x3 matches the plain loop, away from the edge") {
    Buffer<float> in = random_image(20, 12, 1);
    const std::array<float, 9> w = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f};
    Func f = image::convolve3x3(BoundaryConditions::repeat_edge(in), w, "conv");
    Buffer<float> out = f.realize({20, 12});
    for (int y = 1; y < 11; ++y) {
        for (int x = 1; x < 19; ++x) {
            float expected = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) expected += w[(dy + 1) * 3 + dx + 1] * in(x + dx, y + dy);
            CHECK(out(x, y) == doctest::Approx(expected).epsilon(1e-5));
        }
    }
}

TEST_CASE("convolve_separable equals the 2-D convolution by the outer product") {
    Buffer<float> in = random_image(16, 16, 2);
    const std::vector<float> tx = {0.25f, 0.5f, 0.25f}, ty = {0.1f, 0.8f, 0.1f};
    std::array<float, 9> outer{};
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) outer[j * 3 + i] = ty[j] * tx[i];
    Func clamped = BoundaryConditions::repeat_edge(in);
    Buffer<float> separable = image::convolve_separable(clamped, tx, ty, "sep").realize({16, 16});
    Buffer<float> direct = image::convolve3x3(clamped, outer, "direct").realize({16, 16});
    separable.for_each_element([&](int x, int y) {
        CHECK(separable(x, y) == doctest::Approx(direct(x, y)).epsilon(1e-5));
    });
}

TEST_CASE("extra dimensions pass through") {
    Buffer<float> in(8, 8, 3);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = float(c + 1); });
    Func f = image::convolve_1d(BoundaryConditions::repeat_edge(in), 0, {0.25f, 0.5f, 0.25f}, "row");
    Buffer<float> out = f.realize({8, 8, 3});
    CHECK(out(4, 4, 0) == doctest::Approx(1.0f));
    CHECK(out(4, 4, 2) == doctest::Approx(3.0f));
}

TEST_CASE("bad arguments are refused with the operator's name") {
    Buffer<float> in(8, 8);
    CHECK_THROWS_WITH(image::convolve_1d(Func(in), 0, {0.5f, 0.5f}, "even"), doctest::Contains("odd number of taps"));
    Func one_d("one_d");
    Var x;
    one_d(x) = 1.0f;
    CHECK_THROWS_WITH(image::convolve3x3(one_d, {}, "c"), doctest::Contains("one_d"));
}
