#include "strata/dsl/image/BilateralGrid.h"

#include "TestData.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_buffer;

namespace {

int clamp_to(int v, int extent) {
    return std::clamp(v, 0, extent - 1);
}

float mix(float a, float b, float w) {
    return a + (b - a) * w;
}

}  // namespace

TEST_CASE("bilateral_grid_depth is the number of range steps in [0, 1]") {
    CHECK(image::bilateral_grid_depth(0.1f) == 10);
    CHECK(image::bilateral_grid_depth(0.125f) == 8);
    CHECK(image::bilateral_grid_depth(0.3f) == 4);
    CHECK(image::bilateral_grid_depth(1.0f) == 1);
}

TEST_CASE("the splat sums each pixel's values into its spatial cell and rounded intensity cell") {
    const int width = 13, height = 9, spatial = 4;
    const float range = 0.25f;  // z cells 0 … 4
    // Intensities a little outside [0, 1] check the clamp.
    Buffer<float> guide = random_buffer({width, height}, -0.1f, 1.1f, 1);
    Buffer<float> values = random_buffer({width, height, 2}, 0.0f, 1.0f, 2);
    Func splat = image::bilateral_grid(BoundaryConditions::repeat_edge(values), BoundaryConditions::repeat_edge(guide),
                                       spatial, range, "grid");
    Buffer<float> grid(5, 4, 7, 2);  // cells x -1 … 3, y -1 … 2, z -1 … 5
    grid.set_min(-1, -1, -1, 0);
    splat.realize(grid);

    // Walk the pixels (edge repeated) and drop each into its cell.
    Buffer<double> expected(5, 4, 7, 2);
    expected.set_min(-1, -1, -1, 0);
    expected.fill(0.0);
    for (int py = -1 * spatial - 2; py < 3 * spatial + 2; ++py) {
        for (int px = -1 * spatial - 2; px < 4 * spatial + 2; ++px) {
            // Pixel p belongs to cell g when g s - s/2 <= p < g s + s/2.
            const int gx = int(std::floor(double(px + spatial / 2) / spatial));
            const int gy = int(std::floor(double(py + spatial / 2) / spatial));
            if (gx < -1 || gx > 3 || gy < -1 || gy > 2) continue;
            const float v = std::clamp(guide(clamp_to(px, width), clamp_to(py, height)), 0.0f, 1.0f);
            const int gz = int(v * (1.0f / range) + 0.5f);
            for (int k = 0; k < 2; ++k) expected(gx, gy, gz, k) += values(clamp_to(px, width), clamp_to(py, height), k);
        }
    }
    grid.for_each_element([&](const int *pos) {
        CHECK(grid(pos) == doctest::Approx(expected(pos)).epsilon(1e-5));
    });
    // Cells beyond [0, 1] stay empty.
    CHECK(grid(0, 0, -1, 0) == 0.0f);
    CHECK(grid(0, 0, 5, 1) == 0.0f);
}

TEST_CASE("the grid blur is the normalized 1 4 6 4 1 binomial along each of x, y and z") {
    Buffer<float> grid = random_buffer({9, 8, 7, 2}, 0.0f, 1.0f, 3);
    Func clamped = BoundaryConditions::repeat_edge(grid);
    const float taps[] = {1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f};
    for (int dim = 0; dim < 3; ++dim) {
        CAPTURE(dim);
        Buffer<float> out = image::bilateral_grid_blur_dim(clamped, dim, "b").realize({9, 8, 7, 2});
        out.for_each_element([&](int x, int y, int z, int k) {
            double sum = 0;
            for (int d = -2; d <= 2; ++d) {
                int p[3] = {x, y, z};
                p[dim] += d;
                sum += taps[d + 2] * grid(clamp_to(p[0], 9), clamp_to(p[1], 8), clamp_to(p[2], 7), k);
            }
            CHECK(out(x, y, z, k) == doctest::Approx(sum).epsilon(1e-5));
        });
    }
    // The three passes compose, named z, x, then the result.
    Func all = image::bilateral_grid_blur(clamped, "g");
    const auto calls = Internal::find_transitive_calls(all.function());
    CHECK(calls.count("g_z") == 1);
    CHECK(calls.count("g_x") == 1);
}

TEST_CASE("the slice interpolates the grid trilinearly at (x / s, y / s, intensity / r)") {
    const int width = 11, height = 7;
    const float spatial = 4.0f, range = 0.25f, offset = -0.5f;
    Buffer<float> grid = random_buffer({6, 5, 5, 3}, 0.0f, 1.0f, 4);
    grid.set_min(-1, -1, 0, 0);
    Buffer<float> guide = random_buffer({width, height}, -0.2f, 1.2f, 5);
    Func sliced = image::bilateral_grid_slice(Func(grid), Func(guide), spatial, range, offset, "s");
    Buffer<float> out = sliced.realize({width, height, 3});
    out.for_each_element([&](int x, int y, int k) {
        const float fx = (float(x) + offset) / spatial, fy = (float(y) + offset) / spatial;
        const float fz = std::clamp(guide(x, y), 0.0f, 1.0f) / range;
        const int ix = int(std::floor(fx)), iy = int(std::floor(fy)), iz = std::min(int(std::floor(fz)), 3);
        const float wx = fx - ix, wy = fy - iy, wz = fz - iz;
        auto g = [&](int dx, int dy, int dz) { return grid(ix + dx, iy + dy, iz + dz, k); };
        auto plane = [&](int dz) {
            return mix(mix(g(0, 0, dz), g(1, 0, dz), wx), mix(g(0, 1, dz), g(1, 1, dz), wx), wy);
        };
        CHECK(out(x, y, k) == doctest::Approx(mix(plane(0), plane(1), wz)).epsilon(1e-5));
    });
}

TEST_CASE("the bilateral filter keeps flat regions and strong edges, and smooths weak noise") {
    const int width = 48, height = 32;
    Buffer<float> in(width, height);
    std::mt19937 rng(6);
    std::uniform_real_distribution<float> noise(-0.02f, 0.02f);
    // A vertical step from 0.2 to 0.8, with noise far below the range step.
    in.for_each_element([&](int x, int y) { in(x, y) = (x < 24 ? 0.2f : 0.8f) + noise(rng); });
    Func f = image::bilateral_filter(BoundaryConditions::repeat_edge(in), 4, 0.1f, "bf");
    const auto calls = Internal::find_transitive_calls(f.function());
    for (const char *stage : {"bf_grid", "bf_blur_z", "bf_blur_x", "bf_blur_y", "bf_slice"}) {
        CHECK(calls.count(stage) == 1);
    }
    // Inlined into each other, the blurs would make every pixel read 2 × 8 × 125 grid cells.
    for (const char *stage : {"bf_blur_z", "bf_blur_x", "bf_blur_y"}) Func(calls.at(stage)).compute_root();
    Buffer<float> out = f.realize({width, height});
    double in_spread = 0, out_spread = 0;
    out.for_each_element([&](int x, int y) {
        const float side = x < 24 ? 0.2f : 0.8f;
        // Right next to the step, the other side does not bleed in.
        CHECK(std::fabs(out(x, y) - side) < 0.03f);
        in_spread += std::fabs(in(x, y) - side);
        out_spread += std::fabs(out(x, y) - side);
    });
    CHECK(out_spread < 0.5 * in_spread);
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Buffer<float> image2(8, 8), image3(8, 8, 2);
    CHECK_THROWS_WITH(image::bilateral_grid(Func(image3), Func(image2), 0, 0.1f, "g"),
                      doctest::Contains("spatial step"));
    CHECK_THROWS_WITH(image::bilateral_grid(Func(image3), Func(image2), 4, 0.0f, "g"),
                      doctest::Contains("range step"));
    CHECK_THROWS_WITH(image::bilateral_grid(Func(image2), Func(image2), 4, 0.1f, "g"),
                      doctest::Contains("bilateral_grid"));
    CHECK_THROWS_WITH(image::bilateral_grid(Func(image3), Func(image3), 4, 0.1f, "g"),
                      doctest::Contains("guide"));
    CHECK_THROWS_WITH(image::bilateral_grid_blur_dim(Func(image3), 3, "b"), doctest::Contains("not dimension 3"));
    CHECK_THROWS_WITH(image::bilateral_grid_slice(Func(image2), Func(image2), 4.0f, 0.1f, 0.0f, "s"),
                      doctest::Contains("bilateral_grid_slice"));
    CHECK_THROWS_WITH(image::bilateral_filter(Func(image3), 4, 0.1f, "f"), doctest::Contains("(x, y) image"));
}
