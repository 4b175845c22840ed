#include "strata/dsl/image/Resize.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_buffer;

namespace {

double cubic(double t) {
    t = std::fabs(t);
    const double a = -0.5;
    if (t <= 1) return (a + 2) * t * t * t - (a + 3) * t * t + 1;
    if (t < 2) return a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a;
    return 0;
}

// The 2-D resampling written out: for each output pixel, the weighted taps
// of both directions at once, with clamped indices.
double resampled(const Buffer<float> &in, int x, int y, int out_w, int out_h, bool bicubic) {
    const int w = in.width(), h = in.height();
    const double sx = (x + 0.5) * w / out_w - 0.5, sy = (y + 0.5) * h / out_h - 0.5;
    const int bx = int(std::floor(sx)), by = int(std::floor(sy));
    double sum = 0;
    for (int j = bicubic ? -1 : 0; j <= (bicubic ? 2 : 1); ++j) {
        for (int i = bicubic ? -1 : 0; i <= (bicubic ? 2 : 1); ++i) {
            const double dx = sx - (bx + i), dy = sy - (by + j);
            const double weight = bicubic ? cubic(dx) * cubic(dy) : (1 - std::fabs(dx)) * (1 - std::fabs(dy));
            sum += weight * in(std::clamp(bx + i, 0, w - 1), std::clamp(by + j, 0, h - 1));
        }
    }
    return sum;
}

}  // namespace

TEST_CASE("bilinear and bicubic resizes match the 2-D resampling sums, up and down") {
    Buffer<float> in = random_buffer({13, 9}, 0.0f, 1.0f, 1);
    for (bool bicubic : {false, true}) {
        for (auto [w, h] : {std::pair{20, 15}, std::pair{6, 5}}) {
            CAPTURE(bicubic);
            CAPTURE(w);
            Func f = bicubic ? image::resize_bicubic(Func(in), 13, 9, w, h, "r") : image::resize_bilinear(Func(in), 13, 9, w, h, "r");
            Buffer<float> out = f.realize({w, h});
            out.for_each_element([&](int x, int y) {
                CHECK(out(x, y) == doctest::Approx(resampled(in, x, y, w, h, bicubic)).epsilon(1e-5));
            });
        }
    }
}

TEST_CASE("the same size is the identity, and halving averages 2x2 blocks") {
    Buffer<float> in = random_buffer({12, 8}, 0.0f, 1.0f, 2);
    for (bool bicubic : {false, true}) {
        Func f = bicubic ? image::resize_bicubic(Func(in), 12, 8, 12, 8, "same") : image::resize_bilinear(Func(in), 12, 8, 12, 8, "same");
        Buffer<float> same = f.realize({12, 8});
        same.for_each_element([&](int x, int y) { CHECK(same(x, y) == doctest::Approx(in(x, y)).epsilon(1e-6)); });
    }
    Buffer<float> half = image::resize_bilinear(Func(in), 12, 8, 6, 4, "half").realize({6, 4});
    half.for_each_element([&](int x, int y) {
        const float mean = (in(2 * x, 2 * y) + in(2 * x + 1, 2 * y) + in(2 * x, 2 * y + 1) + in(2 * x + 1, 2 * y + 1)) / 4;
        CHECK(half(x, y) == doctest::Approx(mean).epsilon(1e-6));
    });
}

TEST_CASE("bicubic reproduces a quadratic away from the edges; channels pass through") {
    Buffer<float> in(16, 16, 2);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = 0.01f * x * x + 0.5f * y + float(c); });
    Func f = image::resize_bicubic(Func(in), 16, 16, 24, 24, "up");
    Buffer<float> out = f.realize({24, 24, 2});
    CHECK_NOTHROW(strata::dsl::find_stage(f, "up_x"));  // the row pass, under its name
    for (int c = 0; c < 2; ++c) {
        for (int y = 4; y < 20; ++y) {
            for (int x = 4; x < 20; ++x) {
                const double sx = (x + 0.5) * 16 / 24 - 0.5, sy = (y + 0.5) * 16 / 24 - 0.5;
                CHECK(out(x, y, c) == doctest::Approx(0.01 * sx * sx + 0.5 * sy + c).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Buffer<float> in(8, 8);
    CHECK_THROWS_WITH(image::resize_bilinear(Func(in), 8, 8, 0, 4, "zero"), doctest::Contains("output width must be positive"));
    CHECK_THROWS_WITH(image::resize_bicubic(Func(in), 8, -1, 4, 4, "neg"), doctest::Contains("input height"));
    Func one_d("one_d");
    Var x;
    one_d(x) = 1.0f;
    CHECK_THROWS_WITH(image::resize_bicubic(one_d, 8, 8, 4, 4, "flat"), doctest::Contains("one_d"));
}
