// harris: the Harris corner response of an RGB image. From the luminance's
// Sobel gradients, the structure tensor (Ix², Iy², IxIy) is averaged over a
// 3×3 box, and the response is det - k·trace² (k = 0.04).
//
// Stages: gray → ix, iy → (inlined products) → box-filtered sxx, syy, sxy
// (each a row pass and a column pass) → output. Estimates: 1536×2560 RGB in,
// 1536×2560 response out.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/Blur.h"
#include "strata/dsl/image/Color.h"
#include "strata/dsl/image/Gradient.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

class Harris : public Generator<Harris> {
public:
    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func gray = image::luminance(clamped, "gray");
        Func ix = image::sobel_x(gray, "ix");
        Func iy = image::sobel_y(gray, "iy");
        Func ixx("ixx"), iyy("iyy"), ixy("ixy");
        ixx(x, y) = ix(x, y) * ix(x, y);
        iyy(x, y) = iy(x, y) * iy(x, y);
        ixy(x, y) = ix(x, y) * iy(x, y);
        Func sxx = image::box_blur(ixx, 1, "sxx");
        Func syy = image::box_blur(iyy, 1, "syy");
        Func sxy = image::box_blur(ixy, 1, "sxy");
        Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
        Expr trace = sxx(x, y) + syy(x, y);
        output(x, y) = det - 0.04f * trace * trace;

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560});

        if (!using_autoscheduler()) schedule_manually(gray, ix, iy);
    }

private:
    // One kernel per 32×8 output tile: gray and the two gradients are staged
    // in shared memory with their halos; the products and box filters are
    // inlined into the output's threads (9 reads of each gradient per pixel,
    // all from shared memory).
    void schedule_manually(Func gray, Func ix, Func iy) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        for (Func stage : {ix, iy, gray}) {
            stage.compute_at(output, xo).gpu_threads(stage.args()[0], stage.args()[1]);
        }
    }

    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Harris, harris)
