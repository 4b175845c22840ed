#include "strata/dsl/image/Convolution.h"

#include "TestData.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_buffer;

TEST_CASE("convolve3x3 matches the plain loop, away from the edge") {
    Buffer<float> in = random_buffer({20, 12}, 0.1f, 1.0f, 1);
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
    Buffer<float> in = random_buffer({16, 16}, 0.1f, 1.0f, 2);
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

TEST_CASE("convolve with a kernel buffer matches the plain loop, including even extents") {
    Buffer<float> in = random_buffer({18, 14}, 0.1f, 1.0f, 3);
    for (auto [kw, kh] : {std::pair{3, 5}, std::pair{4, 2}}) {
        CAPTURE(kw);
        CAPTURE(kh);
        Buffer<float> kernel = random_buffer({kw, kh}, 0.1f, 1.0f, 4 + kw);
        Func f = image::convolve(BoundaryConditions::repeat_edge(in), Func(kernel), kernel.dim(0).extent(),
                                 kernel.dim(1).extent(), "conv");
        Buffer<float> out = f.realize({18, 14});
        for (int y = kh; y < 14 - kh; ++y) {
            for (int x = kw; x < 18 - kw; ++x) {
                float expected = 0;
                for (int j = 0; j < kh; ++j)
                    for (int i = 0; i < kw; ++i) expected += kernel(i, j) * in(x + i - kw / 2, y + j - kh / 2);
                CHECK(out(x, y) == doctest::Approx(expected).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("convolve takes its kernel extents at run time") {
    Buffer<float> in = random_buffer({10, 10}, 0.1f, 1.0f, 5);
    Buffer<float> kernel(3, 3);
    kernel.fill(0.0f);
    kernel(2, 1) = 1.0f;  // picks the right neighbor
    Param<int> width("width"), height("height");
    Func f = image::convolve(BoundaryConditions::repeat_edge(in), Func(kernel), width, height, "shift");
    width.set(3);
    height.set(3);
    Buffer<float> out = f.realize({10, 10});
    for (int x = 0; x < 9; ++x) CHECK(out(x, 4) == in(x + 1, 4));
}

TEST_CASE("box_sum sums a centered window along one dimension, widening narrow integers") {
    Buffer<uint8_t> in(12, 6);
    in.for_each_element([&](int x, int y) { in(x, y) = uint8_t(200 + x + y); });
    Func clamped = BoundaryConditions::repeat_edge(in);
    Param<int> size("size");
    size.set(5);
    Func sums = image::box_sum(clamped, 0, size, "along_x");
    CHECK(sums.types()[0] == UInt(32));
    Buffer<uint32_t> along_x = sums.realize({12, 6});
    for (int y = 0; y < 6; ++y) {
        for (int x = 2; x < 10; ++x) {
            uint32_t expected = 0;
            for (int i = -2; i <= 2; ++i) expected += in(x + i, y);
            CHECK(along_x(x, y) == expected);
        }
    }
    Buffer<float> f = random_buffer({8, 8}, 0.1f, 1.0f, 6);
    Buffer<float> along_y =
        image::box_sum(BoundaryConditions::repeat_edge(f), 1, 4, "along_y").realize({8, 8});
    // An even window reaches one further back than forward: [-2, 2).
    CHECK(along_y(3, 4) == doctest::Approx(f(3, 2) + f(3, 3) + f(3, 4) + f(3, 5)));
}

TEST_CASE("convolve and box_sum refuse bad arguments, naming them") {
    Buffer<float> in = random_buffer({8, 8}, 0.1f, 1.0f, 7);
    Func one_d("one_d");
    Var x;
    one_d(x) = 1.0f;
    CHECK_THROWS_WITH(image::convolve(Func(in), one_d, 3, 3, "conv"), doctest::Contains("one_d"));
    CHECK_THROWS_WITH(image::convolve(one_d, Func(in), 3, 3, "conv"), doctest::Contains("one_d"));
    CHECK_THROWS_WITH(image::box_sum(Func(in), 2, 3, "sums"), doctest::Contains("sums"));
    CHECK_THROWS_WITH(image::box_sum(Func(in), 0, Expr(2.5f), "sums"), doctest::Contains("integer"));
}
