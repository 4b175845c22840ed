// iir_blur: a zero-phase first-order IIR blur of an RGB float image, with
// the structure of Halide's iir_blur app minus its transposes: a symmetric
// recursive filter (causal pass, then anti-causal pass over its result, each
// y[n] = (1 - alpha) y[n -/+ 1] + alpha x[n]) down the columns, then the same
// along the rows of the column-blurred image. Each scan starts at the image
// edge from the edge sample. alpha is a scalar input (0.1 by default).
//
// Stages: blur_y (edge row, downward scan, upward scan) → blur_x (edge
// column, rightward scan, leftward scan), which is the output itself.
// Estimates: 1536×2560×3 in and out.
//
// Notable structure: every stage after the first is a scan (an update over
// an RDom spanning a whole image dimension); the only parallelism is across
// the other dimension and the channels, and the row scans read and write
// with a stride of one row per thread.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/RecursiveFilter.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class IirBlur : public Generator<IirBlur> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> alpha{"alpha", 0.1f, 0.001f, 1.0f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func blur_y = image::symmetric_recursive_filter(input, 1, alpha, input.dim(1).min(), input.dim(1).extent(),
                                                        "blur_y");
        Func blur_x = image::symmetric_recursive_filter(blur_y, 0, alpha, input.dim(0).min(), input.dim(0).extent(),
                                                        "blur_x");
        // The last scan writes the output buffer directly: no copy pass.
        output = blur_x;

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});
        alpha.set_estimate(0.1f);

        if (!using_autoscheduler()) schedule_manually(blur_y, blur_x);
    }

private:
    // Each scan stage is one kernel in which a thread owns one line (a
    // column for blur_y, a row for blur_x) of one channel and walks it;
    // blocks of 32 threads spread the few thousand lines over all SMs. The
    // scan loops are unrolled by 8 so that the independent input loads of
    // eight steps issue ahead of the dependent multiply-add chain and each
    // step's result is forwarded in registers to the next. The edge stages
    // are one small kernel each. Partial blocks are guarded, never shifted
    // inwards: running a scan twice over a line would filter it twice.
    void schedule_manually(Func blur_y, Func blur_x) {
        schedule_scans(blur_y, 0);  // parallel over columns x
        schedule_scans(blur_x, 1);  // parallel over rows y
    }

    void schedule_scans(Func f, int parallel_dim) {
        Var line = f.args()[parallel_dim], channel = f.args()[2];
        Var lo("lo"), li("li");
        f.compute_root();
        f.update(0).split(line, lo, li, 64, TailStrategy::GuardWithIf).gpu_blocks(lo, channel).gpu_threads(li);
        for (int stage : {1, 2}) {
            RVar r = f.rvars(stage)[0];
            RVar ro("ro"), ri("ri");
            f.update(stage)
                .split(r, ro, ri, 8)
                .unroll(ri)
                .split(line, lo, li, 32, TailStrategy::GuardWithIf)
                .reorder(ri, ro, li, lo, channel)
                .gpu_blocks(lo, channel)
                .gpu_threads(li);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(IirBlur, iir_blur)
