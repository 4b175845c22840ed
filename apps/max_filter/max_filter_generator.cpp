// max_filter: a large square max filter (grayscale dilation) of an RGB float
// image, each channel on its own: out(x, y) is the maximum of the input over
// the (2 radius + 1)² window centered on (x, y), radius 26 by default as in
// the max_filter benchmark of the Halide literature, with the edge repeated.
//
// Stages: the vertical pass "vertical" uses the van Herk / Gil-Werman running
// max (vertical_prefix and vertical_suffix scan each 53-row block of every
// column; a window is one suffix and one prefix), so its cost does not grow
// with the radius; the horizontal pass "horizontal" is a direct 53-tap max
// over the vertical result. Estimates: 1536×2560×3 in and out.
//
// Notable structure: two scans (update definitions over an RDom) whose
// parallelism is over columns, blocks and channels, and a wide 1-D stencil.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/MinMaxFilter.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class MaxFilter : public Generator<MaxFilter> {
public:
    GeneratorParam<int> radius{"radius", 26, 1, 128};

    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func vertical = image::max_filter_1d(clamped, 1, radius, "vertical", image::WindowMethod::Running);
        Func horizontal = image::max_filter_1d(vertical, 0, radius, "horizontal", image::WindowMethod::Direct);
        output(x, y, c) = horizontal(x, y, c);

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});

        if (!using_autoscheduler()) schedule_manually(vertical, horizontal);
    }

private:
    // Two kernels.
    // 1. vertical: one block per 32 columns × one 53-row window block × one
    //    channel. The block's prefix and suffix scans (the two window blocks
    //    each of them needs, 27 KB together) live in shared memory: 64 of
    //    the 256 threads scan, one per (column, window block), then all 256
    //    combine them, 8 rows at a time. Computing vertical over whole
    //    window blocks (align_bounds; at most 52 extra rows) aligns every
    //    tile with a block, which keeps that footprint at exactly two blocks
    //    and the shared allocation a constant.
    // 2. output: 64×8 tiles; the vertical rows the tile needs (64 + 52
    //    columns) are staged in shared memory by the tile's 512 threads, and
    //    each thread reduces its 53 taps from there, unrolled, in registers.
    void schedule_manually(Func vertical, Func horizontal) {
        const int window = 2 * radius + 1;
        Func prefix = strata::dsl::find_stage(vertical, "vertical_prefix");
        Func suffix = strata::dsl::find_stage(vertical, "vertical_suffix");

        Var vx = vertical.args()[0], vy = vertical.args()[1], vc = vertical.args()[2];
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), yii("yii"), yio("yio");
        vertical.compute_root()
            .align_bounds(vy, window)
            .split(vx, xo, xi, 32)
            .split(vy, yo, yi, window)
            .split(yi, yio, yii, 8, TailStrategy::GuardWithIf)
            .reorder(xi, yii, yio, xo, yo, vc)
            .gpu_blocks(xo, yo, vc)
            .gpu_threads(xi, yii);
        for (Func scan : {prefix, suffix}) {
            Var sx = scan.args()[0], offset = scan.args()[1], block = scan.args()[2];
            Var oo("oo"), oi("oi");
            scan.compute_at(vertical, xo)
                .split(offset, oo, oi, 8, TailStrategy::GuardWithIf)
                .reorder(sx, oi, oo, block)
                .gpu_threads(sx, oi);
            // The scan runs serially along its RDom inside each thread.
            scan.update().gpu_threads(sx, block);
        }

        output.compute_root()
            .gpu_tile(x, y, xo, yo, xi, yi, 64, 8)
            .gpu_blocks(c);
        Func staged = vertical.in();
        Var sx = staged.args()[0], sy = staged.args()[1], sxo("sxo"), sxi("sxi");
        staged.compute_at(output, xo)
            .split(sx, sxo, sxi, 64, TailStrategy::GuardWithIf)
            .reorder(sxi, sy, sxo)
            .gpu_threads(sxi, sy);
        horizontal.compute_at(output, xi).unroll(horizontal.args()[0]);
        horizontal.update().unroll(horizontal.rvars()[0]);
    }

    Var x{"x"}, y{"y"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MaxFilter, max_filter)
