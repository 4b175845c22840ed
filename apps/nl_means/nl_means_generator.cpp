// nl_means: non-local means denoising (Buades, Coll, Morel, CVPR 2005) of a
// float RGB image, as in Halide's nl_means app. Each output pixel is the
// average of the pixels in a search window around it, weighted by how much
// their surrounding patches look like its own: weight = exp(-d / (h² n²)),
// d the sum of squared RGB differences over the n×n patch, h = sigma.
//
// Stages: diff(x, y, dx, dy) — the squared RGB difference between the pixel
// and the one at offset (dx, dy) → patch_y, patch_distance (box sums over
// the patch, first along y, then along x) → the weight (inlined) → sum
// (x, y, c), over the search window, of weight · (R, G, B, 1) → output =
// color / total weight, clamped to [0, 1].
//
// Parameters (inputs, as in the original): patch_size 7, search_area 7
// (offsets -3 … 3 in x and y), sigma 0.12. Estimates: 1536×2560 RGB.
//
// Notable structure: two four-dimensional intermediates indexed by the
// search offset, reductions whose extents are run-time inputs, and a
// reduction (the search window) around them.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/Convolution.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class NlMeans : public Generator<NlMeans> {
public:
    Input<Buffer<float>> input{"input", 3};
    // At most 15, so that a tile and its patch halo fit in one thread block.
    Input<int> patch_size{"patch_size", 7, 1, 15};
    Input<int> search_area{"search_area", 7, 1, 31};
    Input<float> sigma{"sigma", 0.12f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);

        Func diff("diff");
        Expr squares = 0.0f;
        for (int ch = 0; ch < 3; ++ch) {
            Expr d = clamped(x, y, ch) - clamped(x + dx, y + dy, ch);
            squares += d * d;
        }
        diff(x, y, dx, dy) = squares;
        Func patch_y = image::box_sum(diff, 1, patch_size, "patch_y");
        Func patch_distance = image::box_sum(patch_y, 0, patch_size, "patch_distance");

        Expr inverse_scale = -1.0f / (sigma * sigma * cast<float>(patch_size * patch_size));
        Func rgb1("rgb1");
        rgb1(x, y, c) = select(c == 3, 1.0f, clamped(x, y, c));

        RDom window(-(search_area / 2), search_area, -(search_area / 2), search_area, "window");
        Expr weight = exp(patch_distance(x, y, window.x, window.y) * inverse_scale);
        Func sum("sum");
        sum(x, y, c) = 0.0f;
        sum(x, y, c) += weight * rgb1(x + window.x, y + window.y, c);

        output(x, y, c) = clamp(sum(x, y, c) / sum(x, y, 3), 0.0f, 1.0f);

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});
        patch_size.set_estimate(7);
        search_area.set_estimate(7);
        sigma.set_estimate(0.12f);

        if (!using_autoscheduler()) schedule_manually(diff, patch_y, patch_distance, sum);
    }

private:
    // One kernel over 32×8 output tiles; the search offsets run serially
    // inside each block. For each offset, the differences over the tile and
    // its patch halo, then the column sums, then the patch distances are
    // computed by the block's threads into shared memory; each thread then
    // adds its pixel's weighted contribution to its four accumulators, which
    // live in shared memory across the offsets.
    void schedule_manually(Func diff, Func patch_y, Func patch_distance, Func sum) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xo, yo, xi, yi, 32, 8);

        sum.compute_at(output, xo).bound(c, 0, 4).reorder(c, x, y).unroll(c).gpu_threads(x, y);
        const RVar wx = sum.rvars()[0], wy = sum.rvars()[1];
        sum.update().reorder(c, x, y, wx, wy).unroll(c).gpu_threads(x, y);

        // The halo stages' thread blocks take the shape of the tile plus the
        // patch's reach (38×14 for 7×7 patches; 46×22 = 1012 threads at the
        // largest patch_size allowed). Fixed 32×8 thread tiles over them
        // would cost more than twice the registers for the index arithmetic.
        diff.compute_at(sum, wx).gpu_threads(x, y);
        for (Func box : {patch_y, patch_distance}) {
            Var bx = box.args()[0], by = box.args()[1];
            box.compute_at(sum, wx).gpu_threads(bx, by);
            box.update().gpu_threads(bx, by);
        }
    }

    Var x{"x"}, y{"y"}, dx{"dx"}, dy{"dy"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(NlMeans, nl_means)
