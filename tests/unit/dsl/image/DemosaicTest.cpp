#include "strata/dsl/image/Demosaic.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"
#include "reference/MalvarDemosaic.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace image = strata::dsl::image;
using image::BayerPattern;
using strata::testing::random_integers;

namespace {

// The color (0 R, 1 G, 2 B) of mosaic pixel (x, y), written out per pattern.
int color_at(BayerPattern pattern, int x, int y) {
    const bool odd_x = x % 2 != 0, odd_y = y % 2 != 0;
    switch (pattern) {
    case BayerPattern::RGGB: return odd_x == odd_y ? (odd_x ? 2 : 0) : 1;
    case BayerPattern::GRBG: return odd_x == odd_y ? 1 : (odd_x ? 0 : 2);
    case BayerPattern::GBRG: return odd_x == odd_y ? 1 : (odd_x ? 2 : 0);
    case BayerPattern::BGGR: return odd_x == odd_y ? (odd_x ? 0 : 2) : 1;
    }
    return -1;
}

// Samples `rgb(x, y)` through the pattern's color filters.
template <typename F>
Buffer<uint16_t> mosaic_of(BayerPattern pattern, int width, int height, F rgb) {
    Buffer<uint16_t> m(width, height);
    m.for_each_element([&](int x, int y) { m(x, y) = uint16_t(rgb(x, y, color_at(pattern, x, y))); });
    return m;
}

// The paper's filters (reference/MalvarDemosaic.h) over a mosaic of `pattern`.
float malvar_at(const Buffer<uint16_t> &m, BayerPattern pattern, int x, int y, int wanted) {
    return strata::testing::malvar_demosaic_at(
        m, [&](int sx, int sy) { return color_at(pattern, sx, sy); }, x, y, wanted);
}

float bilinear_at(const Buffer<uint16_t> &m, BayerPattern pattern, int x, int y, int wanted) {
    float sum = 0;
    int count = 0;
    int nearest = 0;  // the ring of 3×3 neighbors the wanted color sits on
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            if (color_at(pattern, x + dx, y + dy) != wanted) continue;
            const int distance = dx * dx + dy * dy;
            if (count == 0 || distance < nearest) {
                sum = 0;
                count = 0;
                nearest = distance;
            }
            if (distance == nearest) {
                sum += m(x + dx, y + dy);
                ++count;
            }
        }
    }
    return sum / float(count);
}

const BayerPattern kAllPatterns[] = {BayerPattern::RGGB, BayerPattern::GRBG, BayerPattern::GBRG, BayerPattern::BGGR};

}  // namespace

TEST_CASE("deinterleave_bayer splits the four sites into planes") {
    Buffer<uint16_t> m = random_integers<uint16_t>({12, 8}, 0, 1023, 1);
    Buffer<uint16_t> planes = image::deinterleave_bayer(Func(m), "planes").realize({6, 4, 4});
    planes.for_each_element([&](int x, int y, int q) { CHECK(planes(x, y, q) == m(2 * x + q % 2, 2 * y + q / 2)); });
}

TEST_CASE("demosaic_malvar matches the paper's 5x5 filters for every pattern") {
    Buffer<uint16_t> m = random_integers<uint16_t>({24, 16}, 0, 1023, 2);
    for (BayerPattern pattern : kAllPatterns) {
        CAPTURE(int(pattern));
        Func rgb = image::demosaic_malvar(BoundaryConditions::mirror_interior(m), pattern, "rgb");
        Buffer<float> out = rgb.realize({24, 16, 3});
        for (int y = 2; y < 14; ++y) {
            for (int x = 2; x < 22; ++x) {
                for (int c = 0; c < 3; ++c) {
                    CHECK(out(x, y, c) == doctest::Approx(malvar_at(m, pattern, x, y, c)).epsilon(1e-6));
                }
            }
        }
    }
}

TEST_CASE("demosaic_bilinear averages the nearest sites of the wanted color") {
    Buffer<uint16_t> m = random_integers<uint16_t>({16, 12}, 0, 1023, 3);
    for (BayerPattern pattern : {BayerPattern::GRBG, BayerPattern::RGGB}) {
        CAPTURE(int(pattern));
        Buffer<float> out = image::demosaic_bilinear(BoundaryConditions::mirror_interior(m), pattern, "rgb")
                                .realize({16, 12, 3});
        for (int y = 1; y < 11; ++y)
            for (int x = 1; x < 15; ++x)
                for (int c = 0; c < 3; ++c)
                    CHECK(out(x, y, c) == doctest::Approx(bilinear_at(m, pattern, x, y, c)).epsilon(1e-6));
    }
}

TEST_CASE("both methods reproduce per-channel linear ramps exactly") {
    // Every filter sums to one and its Laplacian correction vanishes on a
    // ramp, so a smooth image comes back unchanged.
    auto ramp = [](int x, int y, int c) { return 100 + 7 * x + 3 * y + 40 * c; };
    for (BayerPattern pattern : kAllPatterns) {
        Buffer<uint16_t> m = mosaic_of(pattern, 20, 14, ramp);
        for (bool malvar : {false, true}) {
            CAPTURE(int(pattern));
            CAPTURE(malvar);
            Func in(m);
            Func rgb =
                malvar ? image::demosaic_malvar(in, pattern, "rgb") : image::demosaic_bilinear(in, pattern, "rgb");
            Buffer<float> out(16, 10, 3);
            out.set_min(2, 2, 0);
            rgb.realize(out);
            out.for_each_element([&](int x, int y, int c) { CHECK(out(x, y, c) == float(ramp(x, y, c))); });
        }
    }
}

TEST_CASE("dimensions after (x, y) pass through, after the color") {
    Buffer<uint16_t> m(8, 8, 2);
    m.for_each_element(
        [&](int x, int y, int n) { m(x, y, n) = uint16_t(color_at(BayerPattern::RGGB, x, y) * 10 + n); });
    Buffer<float> out = image::demosaic_bilinear(BoundaryConditions::mirror_interior(m), BayerPattern::RGGB, "rgb")
                            .realize({8, 8, 3, 2});
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 3; ++c) CHECK(out(3, 4, c, n) == doctest::Approx(float(c * 10 + n)));
}

TEST_CASE("the stages are named after the result") {
    Buffer<uint16_t> m = random_integers<uint16_t>({8, 8}, 0, 1023, 4);
    // A name used only here: Halide makes repeated Func names unique.
    Func rgb = image::demosaic_malvar(BoundaryConditions::mirror_interior(m), BayerPattern::GRBG, "demosaic_stages");
    CHECK(strata::dsl::given_name(strata::dsl::find_stage(rgb, "demosaic_stages_quads")) == "demosaic_stages_quads");
    CHECK(strata::dsl::given_name(strata::dsl::find_stage(rgb, "demosaic_stages_deinterleaved")) ==
          "demosaic_stages_deinterleaved");
}

TEST_CASE("a mosaic without two dimensions is refused, naming it") {
    Func line("line");
    Var x;
    line(x) = cast<uint16_t>(x);
    CHECK_THROWS_WITH(image::demosaic_malvar(line, BayerPattern::GRBG, "rgb"), doctest::Contains("line"));
    CHECK_THROWS_WITH(image::deinterleave_bayer(line, "planes"), doctest::Contains("deinterleave_bayer"));
}
