// interpolate: fills the transparent parts of an RGBA image from its opaque
// parts by multi-scale interpolation, the algorithm of Halide's `interpolate`
// app: colors are premultiplied by alpha, a 10-level pyramid is built by
// [1 2 1] downsampling, and then, from the coarsest level up, each level's
// missing weight (1 - alpha) is filled with the upsampled coarser result;
// dividing by the final alpha undoes the premultiplication.
//
// Stages: premultiplied (inlined) → downsampled_level1 … downsampled_level9
// (each a row pass "_x" and a column pass) → interpolated_level8 …
// interpolated_level0 (each through an upsample "_up_x", "_up") → output.
// Level 4 is read through a clamp to its own extent, as in the original, so
// that the coarser levels' footprints stop growing past the image edge.
// Estimates: 1536×2560 RGBA in, RGB out.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/Pyramid.h"

#include <string>
#include <vector>

namespace {

using namespace Halide;
namespace image = strata::dsl::image;
using image::PyramidKernel;

class Interpolate : public Generator<Interpolate> {
public:
    GeneratorParam<int> levels{"levels", 10, 2, 16};

    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func premultiplied("premultiplied");
        Expr alpha = clamped(x, y, 3);
        premultiplied(x, y, c) = select(c < 3, clamped(x, y, c) * alpha, alpha);

        std::vector<Func> downsampled = {premultiplied};
        for (int l = 1; l < levels; ++l) {
            Func finer = downsampled.back();
            if (l == kClampedLevel + 1) {
                const int scale = 1 << kClampedLevel;
                finer = BoundaryConditions::repeat_edge(finer, {{0, (input.width() + scale - 1) / scale},
                                                                {0, (input.height() + scale - 1) / scale}});
            }
            downsampled.push_back(image::downsample(finer, PyramidKernel::Binomial3, level("downsampled", l)));
        }

        std::vector<Func> interpolated(levels);
        interpolated[levels - 1] = downsampled[levels - 1];
        for (int l = levels - 2; l >= 0; --l) {
            Func coarser =
                image::upsample(interpolated[l + 1], PyramidKernel::Binomial3, level("interpolated", l) + "_up");
            Func here(level("interpolated", l));
            here(x, y, c) = downsampled[l](x, y, c) + (1.0f - downsampled[l](x, y, 3)) * coarser(x, y, c);
            interpolated[l] = here;
        }
        output(x, y, c) = interpolated[0](x, y, c) / interpolated[0](x, y, 3);

        strata::dsl::estimate_extents(input, {1536, 2560, 4});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});

        if (!using_autoscheduler()) schedule_manually(downsampled, interpolated);
    }

private:
    static constexpr int kClampedLevel = 4;

    static std::string level(const std::string &name, int l) { return name + "_level" + std::to_string(l); }

    // One kernel per level and direction. A downsampled level is computed
    // per tile, its row pass staged in shared memory; an interpolated level
    // inlines its upsample (four reads of the coarser level per channel).
    // Level 0 is computed per output pixel in registers, all four channels
    // at once, and divided by its alpha. The four channels are unrolled
    // everywhere. Coarse levels, a few dozen pixels wide, get 8×8 tiles.
    void schedule_manually(const std::vector<Func> &downsampled, const std::vector<Func> &interpolated) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        auto tile = [&](Func f, int l) {
            const int w = l <= kClampedLevel ? 32 : 8, h = 8;
            Var fx = f.args()[0], fy = f.args()[1], fc = f.args()[2];
            f.compute_root().bound(fc, 0, 4).reorder(fc, fx, fy).unroll(fc).gpu_tile(fx, fy, xo, yo, xi, yi, w, h);
        };
        for (int l = 1; l < levels; ++l) {
            Func down = downsampled[l];
            tile(down, l);
            Func rows = strata::dsl::find_stage(down, level("downsampled", l) + "_x");
            Var rx = rows.args()[0], ry = rows.args()[1], rc = rows.args()[2];
            rows.compute_at(down, xo).bound(rc, 0, 4).reorder(rc, rx, ry).unroll(rc).gpu_threads(rx, ry);
        }
        for (int l = 1; l < levels - 1; ++l) tile(interpolated[l], l);

        output.compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        Func level0 = interpolated[0];
        Var ic = level0.args()[2];
        level0.compute_at(output, xi).bound(ic, 0, 4).unroll(ic);
    }

    Var x{"x"}, y{"y"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Interpolate, interpolate)
