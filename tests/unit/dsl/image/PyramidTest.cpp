#include "strata/dsl/image/Pyramid.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace Halide;
namespace image = strata::dsl::image;
using image::PyramidKernel;
using strata::testing::random_buffer;

namespace {

// The kernels as printed: offsets of the first tap and the binomial weights.
struct KernelTable {
    PyramidKernel kernel;
    int first_offset;
    std::vector<float> weights;
};
const KernelTable kKernels[] = {
    {PyramidKernel::Binomial3, -1, {1 / 4.f, 2 / 4.f, 1 / 4.f}},
    {PyramidKernel::Binomial4, -1, {1 / 8.f, 3 / 8.f, 3 / 8.f, 1 / 8.f}},
    {PyramidKernel::Binomial5, -2, {1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f}},
};

// Left inline, the levels of a pyramid are recomputed by every consumer:
// the work grows exponentially with the depth. Give each its own buffer.
void compute_all_at_root(const Func &output) {
    for (const auto &entry : Internal::find_transitive_calls(output.function())) {
        if (entry.first != output.name()) Func(entry.second).compute_root();
    }
}

float clamped_at(const Buffer<float> &b, int x, int y) {
    return b(std::clamp(x, 0, b.width() - 1), std::clamp(y, 0, b.height() - 1));
}

}  // namespace

TEST_CASE("downsample filters with the binomial kernel and keeps every other sample") {
    Buffer<float> in = random_buffer({32, 24}, 0.0f, 1.0f, 1);
    for (const KernelTable &k : kKernels) {
        CAPTURE(int(k.kernel));
        Buffer<float> out = image::downsample(BoundaryConditions::repeat_edge(in), k.kernel, "down").realize({16, 12});
        out.for_each_element([&](int x, int y) {
            float expected = 0;
            for (size_t j = 0; j < k.weights.size(); ++j)
                for (size_t i = 0; i < k.weights.size(); ++i)
                    expected += k.weights[i] * k.weights[j] *
                                clamped_at(in, 2 * x + k.first_offset + int(i), 2 * y + k.first_offset + int(j));
            CHECK(out(x, y) == doctest::Approx(expected).epsilon(1e-5));
        });
    }
}

TEST_CASE("upsample inserts zeros and filters with twice the kernel") {
    Buffer<float> in = random_buffer({10, 8}, 0.0f, 1.0f, 2);
    for (const KernelTable &k : kKernels) {
        CAPTURE(int(k.kernel));
        Buffer<float> out = image::upsample(BoundaryConditions::repeat_edge(in), k.kernel, "up").realize({20, 16});
        // Scatter every coarse sample through the doubled kernel onto the fine grid.
        Buffer<float> expected(20, 16);
        expected.fill(0.0f);
        const int n = int(k.weights.size());
        for (int cy = -3; cy < 8 + 3; ++cy) {
            for (int cx = -3; cx < 10 + 3; ++cx) {
                for (int j = 0; j < n; ++j) {
                    for (int i = 0; i < n; ++i) {
                        const int fx = 2 * cx + k.first_offset + i, fy = 2 * cy + k.first_offset + j;
                        if (fx < 0 || fy < 0 || fx >= 20 || fy >= 16) continue;
                        expected(fx, fy) += 4 * k.weights[i] * k.weights[j] * clamped_at(in, cx, cy);
                    }
                }
            }
        }
        out.for_each_element([&](int x, int y) { CHECK(out(x, y) == doctest::Approx(expected(x, y)).epsilon(1e-5)); });
    }
}

TEST_CASE("upsample with Binomial3 and Binomial4 is linear interpolation") {
    Buffer<float> in(6, 1);
    for (int x = 0; x < 6; ++x) in(x, 0) = float(x * x);
    Func rows = BoundaryConditions::repeat_edge(in);
    Buffer<float> even = image::upsample(rows, PyramidKernel::Binomial3, "even").realize({10, 1});
    CHECK(even(4, 0) == 4.0f);           // on coarse sample 2
    CHECK(even(5, 0) == (4.0f + 9) / 2);  // halfway to coarse sample 3
    Buffer<float> centered = image::upsample(rows, PyramidKernel::Binomial4, "centered").realize({10, 1});
    CHECK(centered(4, 0) == doctest::Approx(0.75f * 4 + 0.25f * 1));  // a quarter of the way back to sample 1
    CHECK(centered(5, 0) == doctest::Approx(0.75f * 4 + 0.25f * 9));
}

TEST_CASE("gaussian_pyramid levels are repeated downsamples, named by level") {
    Buffer<float> in = random_buffer({32, 32}, 0.0f, 1.0f, 3);
    Func clamped = BoundaryConditions::repeat_edge(in);
    std::vector<Func> g = image::gaussian_pyramid(clamped, 3, PyramidKernel::Binomial5, "g");
    REQUIRE(g.size() == 3);
    CHECK(strata::dsl::given_name(g[2]) == "g_level2");
    CHECK_NOTHROW(strata::dsl::find_stage(g[2], "g_level1_x"));
    Func twice = image::downsample(image::downsample(clamped, PyramidKernel::Binomial5, "d1"),
                                   PyramidKernel::Binomial5, "d2");
    compute_all_at_root(g[2]);
    Buffer<float> level2 = g[2].realize({8, 8}), expected = twice.realize({8, 8});
    level2.for_each_element([&](int x, int y) { CHECK(level2(x, y) == doctest::Approx(expected(x, y))); });
    Buffer<float> level0 = g[0].realize({32, 32});
    level0.for_each_element([&](int x, int y) { CHECK(level0(x, y) == in(x, y)); });
}

TEST_CASE("collapsing a Laplacian pyramid gives the image back") {
    Buffer<float> in = random_buffer({40, 24}, 0.0f, 1.0f, 4);
    for (const KernelTable &k : kKernels) {
        CAPTURE(int(k.kernel));
        const std::string tag = "k" + std::to_string(int(k.kernel));
        std::vector<Func> g = image::gaussian_pyramid(BoundaryConditions::repeat_edge(in), 4, k.kernel, tag + "_g");
        std::vector<Func> l = image::laplacian_pyramid(g, k.kernel, tag + "_l");
        Func back = image::collapse_laplacian_pyramid(l, k.kernel, tag + "_back");
        // The level exists under its name (Halide may append "$<n>" to keep names unique).
        CHECK(strata::dsl::find_stage(back, tag + "_back_level2").name().rfind(tag + "_back_level2", 0) == 0);
        compute_all_at_root(back);
        Buffer<float> out = back.realize({40, 24});
        out.for_each_element([&](int x, int y) { CHECK(out(x, y) == doctest::Approx(in(x, y)).epsilon(1e-4)); });
    }
}

TEST_CASE("a constant image has zero detail levels, and channels pass through") {
    Buffer<float> in(16, 16, 2);
    in.for_each_element([&](int x, int y, int c) { in(x, y, c) = c == 0 ? 0.25f : 0.75f; });
    std::vector<Func> g =
        image::gaussian_pyramid(BoundaryConditions::repeat_edge(in), 3, PyramidKernel::Binomial4, "cg");
    std::vector<Func> l = image::laplacian_pyramid(g, PyramidKernel::Binomial4, "cl");
    compute_all_at_root(l[0]);
    Buffer<float> detail = l[0].realize({16, 16, 2}), coarsest = l[2].realize({4, 4, 2});
    detail.for_each_element([&](int x, int y, int c) { CHECK(detail(x, y, c) == doctest::Approx(0.0f)); });
    coarsest.for_each_element(
        [&](int x, int y, int c) { CHECK(coarsest(x, y, c) == doctest::Approx(c == 0 ? 0.25f : 0.75f)); });
}

TEST_CASE("bad arguments are refused, naming the operator and the Func") {
    Func line("line");
    Var x, y, c;
    line(x) = 1.0f;
    CHECK_THROWS_WITH(image::downsample(line, PyramidKernel::Binomial3, "down"), doctest::Contains("line"));
    CHECK_THROWS_WITH(image::upsample(line, PyramidKernel::Binomial3, "up"), doctest::Contains("up"));
    Func plane("plane"), color("color");
    plane(x, y) = 1.0f;
    color(x, y, c) = 1.0f;
    CHECK_THROWS_WITH(image::gaussian_pyramid(plane, 0, PyramidKernel::Binomial3, "g"),
                      doctest::Contains("at least one level"));
    CHECK_THROWS_WITH(image::laplacian_pyramid({}, PyramidKernel::Binomial3, "l"), doctest::Contains("'l'"));
    CHECK_THROWS_WITH(image::collapse_laplacian_pyramid({plane, color}, PyramidKernel::Binomial3, "back"),
                      doctest::Contains("color"));
}
