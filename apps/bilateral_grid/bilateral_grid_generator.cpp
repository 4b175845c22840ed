// bilateral_grid: edge-aware smoothing of a grayscale image (intensities in
// [0, 1]) through a bilateral grid (Chen, Paris, Durand 2007), with the
// algorithm structure of Halide's bilateral_grid app: the image is splatted
// into a grid of (value sum, weight) over cells of spatial_sigma ×
// spatial_sigma pixels (8) and range_sigma (0.1) of intensity, the grid is
// blurred with a 1 4 6 4 1 binomial along z, x and y, and each pixel reads
// the blurred grid trilinearly at (x, y, its intensity); value over weight
// is the result. The image edge is repeated.
//
// Stages: smoothed_values (inlined) → smoothed_grid (reduction over each
// cell's pixels with data-dependent z stores) → smoothed_blur_z →
// smoothed_blur_x → smoothed_blur_y → smoothed_slice (inlined: data-dependent
// z loads) → output. Estimates: 1536×2560 in and out, so a 192×320×11×2 grid.
//
// Notable structure: a scatter whose destinations depend on the data, a
// small 4-D intermediate, and a gather indexed by pixel values.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/BilateralGrid.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class BilateralGridApp : public Generator<BilateralGridApp> {
public:
    GeneratorParam<int> spatial_sigma{"spatial_sigma", 8, 1, 64};
    GeneratorParam<float> range_sigma{"range_sigma", 0.1f, 0.01f, 1.0f};

    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func smoothed = image::bilateral_filter(clamped, spatial_sigma, range_sigma, "smoothed");
        output(x, y) = smoothed(x, y);

        strata::dsl::estimate_extents(input, {1536, 2560});
        strata::dsl::estimate_extents(output, {1536, 2560});

        if (!using_autoscheduler()) {
            schedule_manually(strata::dsl::find_stage(output, "smoothed_grid"),
                              strata::dsl::find_stage(output, "smoothed_blur_z"),
                              strata::dsl::find_stage(output, "smoothed_blur_x"),
                              strata::dsl::find_stage(output, "smoothed_blur_y"));
        }
    }

private:
    // Three kernels.
    // 1. blur_z, one thread per grid column (gx, gy), 16×8 per block: the
    //    thread first splats its cell's 8×8 pixels into its own column of
    //    the grid (15 z × 2 sums, thread-private; the z index depends on the
    //    pixel, so it lives in local memory, not registers), both sums per
    //    pixel read, then blurs the column along z and writes it out.
    // 2. blur_y per 16×16 cells and one z, both sums per thread: the tile's
    //    blur_x rows (16×20, 2.5 KB) are computed into shared memory first.
    // 3. output, 32×8 pixels per block: the slice is inlined, 8 corners × 2
    //    sums gathered from blur_y through the L1 cache (the grid is ~1/30
    //    of the image and neighbouring pixels share corners).
    void schedule_manually(Func grid, Func blur_z, Func blur_x, Func blur_y) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");

        Var zx = blur_z.args()[0], zy = blur_z.args()[1], zz = blur_z.args()[2], zk = blur_z.args()[3];
        blur_z.compute_root().reorder(zk, zz, zx, zy).unroll(zk).gpu_tile(zx, zy, xo, yo, xi, yi, 16, 8);
        Var gx = grid.args()[0], gy = grid.args()[1], gz = grid.args()[2], gk = grid.args()[3];
        grid.compute_at(blur_z, xi).reorder(gk, gz, gx, gy).unroll(gk).unroll(gz);
        RVar rx = grid.rvars()[0], ry = grid.rvars()[1];
        grid.update().reorder(gk, rx, ry, gx, gy).unroll(gk).unroll(rx);

        Var bx = blur_y.args()[0], by = blur_y.args()[1], bz = blur_y.args()[2], bk = blur_y.args()[3];
        blur_y.compute_root()
            .reorder(bk, bx, by, bz)
            .unroll(bk)
            .gpu_tile(bx, by, xo, yo, xi, yi, 16, 16)
            .gpu_blocks(bz);
        Var hx = blur_x.args()[0], hy = blur_x.args()[1], hk = blur_x.args()[3];
        blur_x.compute_at(blur_y, xo).reorder(hk, hx, hy).unroll(hk).gpu_threads(hx, hy);

        output.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
    }

    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(BilateralGridApp, bilateral_grid)
