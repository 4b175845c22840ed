// camera_pipe: a raw-to-RGB camera pipeline with the structure of the FCam
// pipeline that Halide's camera_pipe app implements: a 10-bit GRBG Bayer raw
// becomes an 8-bit sRGB-like image.
//
// Stages: hot-pixel suppression (each raw pixel clamped to the range of its
// four nearest same-color neighbors) → deinterleave into the four Bayer
// planes → demosaic (Malvar-He-Cutler gradient-corrected interpolation, by
// 2×2 quad) → color correction by a 3×4 matrix (an input, applied to raw
// codes) → tone curve (gamma, then contrast) through a 1024-entry lookup table
// built in the pipeline → sharpening (unsharp mask with a 3×3 binomial blur)
// → rounding to uint8.
//
// Like the original, the raw carries a margin that the output does not:
// output pixel (x, y) is raw pixel (x + 16, y + 12), and every filter reads
// inside the margin, so there is no boundary condition. Estimates: a
// 2592×1968 raw, a 2560×1920 RGB output.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/Color.h"
#include "strata/dsl/image/Convolution.h"
#include "strata/dsl/image/Demosaic.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

constexpr int kMarginX = 16, kMarginY = 12;
constexpr int kCurveSize = 1024;  // one entry per 10-bit code

class CameraPipe : public Generator<CameraPipe> {
public:
    Input<Buffer<uint16_t>> input{"input", 2};
    // (column, row): corrected channel `row` = sum_k matrix(k, row) * camera channel k + matrix(3, row).
    Input<Buffer<float>> matrix{"matrix", 2};
    Input<float> gamma{"gamma", 2.2f};
    Input<float> contrast{"contrast", 0.5f};
    Input<int> black_level{"black_level", 25};
    Input<int> white_level{"white_level", 1023};
    Input<float> sharpen_strength{"sharpen_strength", 1.0f};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Func raw("raw");
        raw(x, y) = input(x + kMarginX, y + kMarginY);

        // Hot pixels: a sensor site far outside the range of its same-color
        // neighbors (two pixels away) is clamped into that range.
        Func denoised("denoised");
        Expr lo = min(min(raw(x - 2, y), raw(x + 2, y)), min(raw(x, y - 2), raw(x, y + 2)));
        Expr hi = max(max(raw(x - 2, y), raw(x + 2, y)), max(raw(x, y - 2), raw(x, y + 2)));
        denoised(x, y) = clamp(raw(x, y), lo, hi);

        Func demosaiced = image::demosaic_malvar(denoised, image::BayerPattern::GRBG, "demosaic");
        Func corrected = image::apply_color_matrix(demosaiced, matrix, "corrected");
        Func curve = image::tone_curve_lut(gamma, contrast, black_level, white_level, "curve");
        Func curved = image::apply_lut(corrected, curve, kCurveSize, "curved");

        Func blurred = image::convolve_separable(curved, {0.25f, 0.5f, 0.25f}, {0.25f, 0.5f, 0.25f}, "blurred");
        Func sharpened("sharpened");
        sharpened(x, y, c) = curved(x, y, c) + sharpen_strength * (curved(x, y, c) - blurred(x, y, c));
        Func bytes = image::float_to_integer(sharpened, UInt(8), 255.0f, "bytes");
        output(x, y, c) = bytes(x, y, c);

        strata::dsl::estimate_extents(input, {2592, 1968});
        strata::dsl::estimate_extents(matrix, {4, 3});
        strata::dsl::estimate_extents(output, {2560, 1920, 3});
        gamma.set_estimate(2.2f);
        contrast.set_estimate(0.5f);
        black_level.set_estimate(25);
        white_level.set_estimate(1023);
        sharpen_strength.set_estimate(1.0f);

        if (!using_autoscheduler()) {
            schedule_manually(strata::dsl::find_stage(demosaiced, "demosaic_deinterleaved"),
                              strata::dsl::find_stage(demosaiced, "demosaic_quads"), curve, curved);
        }
    }

private:
    // Two kernels. The curve is a 1024-entry table of its own. Everything
    // else is one kernel over 32×16 output tiles: the tile's Bayer planes
    // (with the hot-pixel filter inlined into them) go to shared memory,
    // then every quad's twelve color values (one thread per quad, color and
    // site unrolled so that each filter is evaluated only where it applies),
    // then the color-corrected, tone-mapped pixels with the sharpening halo;
    // the output's threads sharpen from there, three channels each.
    void schedule_manually(Func deinterleaved, Func quads, Func curve, Func curved) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        Var i = curve.args()[0], io("io"), ii("ii");
        curve.compute_root().bound(i, 0, kCurveSize).gpu_tile(i, io, ii, 128);

        output.compute_root()
            .bound(c, 0, 3)
            .reorder(c, x, y)
            .unroll(c)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 16);

        Var cx = curved.args()[0], cy = curved.args()[1], cc = curved.args()[2];
        curved.compute_at(output, xo).bound(cc, 0, 3).reorder(cc, cx, cy).unroll(cc).gpu_threads(cx, cy);

        Var qx = quads.args()[0], qy = quads.args()[1], qc = quads.args()[2], qq = quads.args()[3];
        quads.compute_at(output, xo)
            .bound(qc, 0, 3)
            .bound(qq, 0, 4)
            .reorder(qc, qq, qx, qy)
            .unroll(qc)
            .unroll(qq)
            .gpu_threads(qx, qy);

        Var dx = deinterleaved.args()[0], dy = deinterleaved.args()[1], dq = deinterleaved.args()[2];
        deinterleaved.compute_at(output, xo).bound(dq, 0, 4).reorder(dq, dx, dy).unroll(dq).gpu_threads(dx, dy);
    }

    Var x{"x"}, y{"y"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CameraPipe, camera_pipe)
