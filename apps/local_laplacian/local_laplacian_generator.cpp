// local_laplacian: edge-aware detail and tone manipulation by local
// Laplacian filtering (Paris, Hasinoff, Kautz, SIGGRAPH 2011), in the fast
// approximation of Halide's local_laplacian app: instead of one remapped
// image per pixel, the luminance is remapped around K evenly spaced
// intensities, the Laplacian pyramids of those K images are built once, and
// each output pyramid coefficient is interpolated between the two
// intensities nearest the input's own Gaussian pyramid value there.
//
// Stages: gray (Rec. 601 luminance of the uint16 RGB input, as float) →
// remap (a lookup table of the detail curve alpha·t·exp(-t²/2), read with
// linear interpolation) → remapped(x, y, k) → processed_level1 … 7 (its
// Gaussian pyramid, [1 3 3 1] filter) → processed_laplacian_level0 … 7;
// gray_pyramid_level1 … 7 (the input's Gaussian pyramid) →
// output_laplacian_level0 … 7 (interpolated between intensities) →
// collapsed_level7 … 1, collapsed → output (color reintroduced by the ratio
// to the luminance, rounded to uint16).
//
// Parameters: 8 pyramid levels (a GeneratorParam), K = `levels` intensity
// levels (an input, 8), detail gain `alpha` (1), tone compression `beta` (1).
// Estimates: 1536×2560 RGB.
//
// Notable structure: a third dimension (intensity) through every processed
// pyramid level, a data-dependent gather along it, and pyramid footprints
// that grow with depth (the coarse levels are needed far past the image).
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/Color.h"
#include "strata/dsl/image/Pyramid.h"

#include <string>
#include <vector>

namespace {

using namespace Halide;
namespace image = strata::dsl::image;
using image::PyramidKernel;

constexpr int kRemapSteps = 256;  // remap table entries per intensity level

class LocalLaplacian : public Generator<LocalLaplacian> {
public:
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 8, 2, 12};

    Input<Buffer<uint16_t>> input{"input", 3};
    Input<int> levels{"levels", 8, 2, 64};
    Input<float> alpha{"alpha", 1.0f};
    Input<float> beta{"beta", 1.0f};
    Output<Buffer<uint16_t>> output{"output", 3};

    void generate() {
        const int J = pyramid_levels;
        const PyramidKernel kernel = PyramidKernel::Binomial4;

        Func floating = image::integer_to_float(BoundaryConditions::repeat_edge(input), 1.0f / 65535, "floating");
        Func gray = image::luminance(floating, "gray");

        // The detail curve around an intensity level, tabulated over
        // [-(K - 1), K - 1] level spacings, 256 steps per spacing.
        Func remap("remap");
        Expr t = cast<float>(i) / float(kRemapSteps);
        remap(i) = alpha * t * exp(-t * t / 2.0f);

        // The luminance remapped around intensity level k of K.
        Expr top = cast<float>(levels - 1);
        Expr level = cast<float>(k) / top;
        Expr position = clamp(gray(x, y) * top * float(kRemapSteps), 0.0f, top * float(kRemapSteps)) -
                        cast<float>(k * kRemapSteps);
        Expr step = cast<int>(floor(position));
        Expr fraction = position - cast<float>(step);
        Expr detail = remap(step) + (remap(step + 1) - remap(step)) * fraction;
        Func remapped("remapped");
        remapped(x, y, k) = beta * (gray(x, y) - level) + level + detail;

        std::vector<Func> processed = image::gaussian_pyramid(remapped, J, kernel, "processed");
        std::vector<Func> processed_laplacian = image::laplacian_pyramid(processed, kernel, "processed_laplacian");
        std::vector<Func> gray_pyramid = image::gaussian_pyramid(gray, J, kernel, "gray_pyramid");

        // Each output coefficient blends the two processed pyramids whose
        // intensities bracket the input's (blurred) intensity there.
        std::vector<Func> output_laplacian;
        for (int j = 0; j < J; ++j) {
            Expr position_j = gray_pyramid[j](x, y) * top;
            Expr below = clamp(cast<int>(position_j), 0, levels - 2);
            Expr weight = position_j - cast<float>(below);
            Func lj("output_laplacian_level" + std::to_string(j));
            lj(x, y) = (1.0f - weight) * processed_laplacian[j](x, y, below) +
                       weight * processed_laplacian[j](x, y, below + 1);
            output_laplacian.push_back(lj);
        }
        Func collapsed = image::collapse_laplacian_pyramid(output_laplacian, kernel, "collapsed");

        // Color comes back as each channel's ratio to the luminance; the
        // epsilon keeps near-black pixels from amplifying noise.
        const float eps = 0.01f;
        Func color("color");
        color(x, y, c) = collapsed(x, y) * (floating(x, y, c) + eps) / (gray(x, y) + eps);
        Func quantized = image::float_to_integer(color, UInt(16), 65535.0f, "quantized");
        output(x, y, c) = quantized(x, y, c);

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});
        levels.set_estimate(8);
        alpha.set_estimate(1.0f);
        beta.set_estimate(1.0f);

        if (!using_autoscheduler()) schedule_manually(remap, gray, processed, gray_pyramid, collapsed);
    }

private:
    // Halide's own GPU schedule of this app gave the shape: every pyramid
    // level a kernel of its own, the Laplacian and blended coefficients
    // inlined into the collapse. Here, additionally: the luminance is
    // computed once (it feeds K remapped images); the processed levels put
    // the intensity dimension on the grid (one block per tile and
    // intensity) and stage their row pass in shared memory, as do the
    // input's pyramid levels; the last collapse step is computed per output
    // pixel in registers and shared by the three channels. Levels below a
    // few dozen pixels get 8×8 tiles.
    void schedule_manually(Func remap, Func gray, const std::vector<Func> &processed,
                           const std::vector<Func> &gray_pyramid, Func collapsed) {
        const int J = pyramid_levels;
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), io("io"), ii("ii");
        auto tile_width = [](int j) { return j < 4 ? 32 : 8; };

        remap.compute_root().gpu_tile(i, io, ii, 128);
        gray.compute_root().gpu_tile(gray.args()[0], gray.args()[1], xo, yo, xi, yi, 32, 8);

        for (int j = 1; j < J; ++j) {
            Func level = processed[j];
            Var lx = level.args()[0], ly = level.args()[1], lk = level.args()[2];
            level.compute_root().reorder(lx, ly, lk).gpu_tile(lx, ly, xo, yo, xi, yi, tile_width(j), 8).gpu_blocks(lk);
            Func rows = strata::dsl::find_stage(level, level.name() + "_x");
            rows.compute_at(level, xo).gpu_threads(rows.args()[0], rows.args()[1]);

            Func input_level = gray_pyramid[j];
            input_level.compute_root().gpu_tile(input_level.args()[0], input_level.args()[1], xo, yo, xi, yi,
                                                tile_width(j), 8);
            Func input_rows = strata::dsl::find_stage(input_level, input_level.name() + "_x");
            input_rows.compute_at(input_level, xo).gpu_threads(input_rows.args()[0], input_rows.args()[1]);
        }

        for (int j = 1; j < J - 1; ++j) {
            Func level = strata::dsl::find_stage(collapsed, "collapsed_level" + std::to_string(j));
            level.compute_root().gpu_tile(level.args()[0], level.args()[1], xo, yo, xi, yi, tile_width(j), 8);
        }

        output.compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        collapsed.compute_at(output, xi);
    }

    Var x{"x"}, y{"y"}, c{"c"}, k{"k"}, i{"i"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LocalLaplacian, local_laplacian)
