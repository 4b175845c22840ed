// unsharp: unsharp masking of an RGB image. The luminance is compared with a
// Gaussian blur of itself, and every channel is scaled by the ratio of the
// sharpened to the original luminance, so color is kept while edges gain
// contrast.
//
// Stages: gray (luminance) → blurred_x → blurred (Gaussian, sigma 1.5) →
// output = input * (2 gray - blurred) / gray. Estimates: 1536×2560 RGB.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/Blur.h"
#include "strata/dsl/image/Color.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class Unsharp : public Generator<Unsharp> {
public:
    GeneratorParam<float> sigma{"sigma", 1.5f};

    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func gray = image::luminance(clamped, "gray");
        Func blurred = image::gaussian_blur(gray, sigma, "blurred");
        Expr sharpened = 2 * gray(x, y) - blurred(x, y);
        output(x, y, c) = clamped(x, y, c) * (sharpened / gray(x, y));

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});

        if (!using_autoscheduler()) schedule_manually(gray, strata::dsl::find_stage(blurred, "blurred_x"), blurred);
    }

private:
    // One kernel: each 32×8 output tile computes its gray, row-blurred and
    // blurred tiles (with halos) in shared memory.
    void schedule_manually(Func gray, Func blurred_x, Func blurred) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.compute_root()
            .bound(c, 0, 3)
            .reorder(c, x, y)
            .unroll(c)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        for (Func stage : {blurred, blurred_x, gray}) {
            stage.compute_at(output, xo).gpu_threads(stage.args()[0], stage.args()[1]);
        }
    }

    Var x{"x"}, y{"y"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Unsharp, unsharp)
