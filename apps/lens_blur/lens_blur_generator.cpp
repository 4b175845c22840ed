// lens_blur: synthetic depth of field from a rectified stereo pair, the
// structure of Halide's lens_blur app. A cost volume compares the left view
// with the right view shifted by each candidate disparity; the best
// disparity per pixel (a min reduction over the slices) is the depth; each
// pixel is then blurred over a disk whose radius grows with its distance from
// the focal plane, by sampling a fixed aperture pattern.
//
// Stages: cost(x, y, z) — for disparity slice z, the squared color
// difference between left(x) and the better of right(x + 2z) and
// right(x + 2z + 1), summed over RGB → cost_x, aggregated (9×9 box sums per
// slice) → depth_search (argmin over the slices; first minimum wins) → depth
// → radius = min(|depth - focus_depth| · blur_radius_scale, 8) (inlined) →
// worst_radius_x, worst_radius (the largest radius within 8 pixels, so that
// the aperture reaches every pixel whose blur can cover this one); aperture
// (the table of tap offsets) → blurred (the pixel plus `samples` aperture
// taps scaled by the worst radius; a tap counts when its own blur disk
// covers this pixel and it is not hidden: it lies within this pixel's disk or
// is nearer, i.e. of larger disparity; alpha accumulates the weights) →
// output = color / weight.
//
// Simplifications against the original, documented: the cost volume is
// aggregated by a box filter instead of a confidence-weighted pyramid, and
// the aperture pattern is a fixed golden-angle spiral (lens_blur_aperture.h)
// instead of random samples, so that a plain reference can reproduce it.
// GeneratorParams: slices = 32 (disparities 0 … 63), samples = 32.
// Estimates: 1536×2560 RGB (uint8) views, float RGB out.
#include "Halide.h"
#include "lens_blur_aperture.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/Convolution.h"

#include <limits>
#include <vector>

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

constexpr int kAggregationWindow = 9;
constexpr int kMaxRadius = 8;

class LensBlur : public Generator<LensBlur> {
public:
    GeneratorParam<int> slices{"slices", 32, 1, 128};
    GeneratorParam<int> samples{"samples", 32, 1, 256};

    Input<Buffer<uint8_t>> left{"left", 3};
    Input<Buffer<uint8_t>> right{"right", 3};
    Input<int> focus_depth{"focus_depth", 13};
    Input<float> blur_radius_scale{"blur_radius_scale", 0.5f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Func left_c = BoundaryConditions::repeat_edge(left);
        Func right_c = BoundaryConditions::repeat_edge(right);

        // Matching cost of disparities 2z and 2z + 1, the better of the two.
        Func cost("cost");
        Expr sum_of_squares = 0;
        for (int ch = 0; ch < 3; ++ch) {
            Expr here = cast<int>(left_c(x, y, ch));
            Expr difference = min(abs(here - cast<int>(right_c(x + 2 * z, y, ch))),
                                  abs(here - cast<int>(right_c(x + 2 * z + 1, y, ch))));
            sum_of_squares += cast<int>(difference * difference);
        }
        cost(x, y, z) = sum_of_squares;
        Func cost_x = image::box_sum(cost, 0, kAggregationWindow, "cost_x");
        Func aggregated = image::box_sum(cost_x, 1, kAggregationWindow, "aggregated");

        Func depth_search("depth_search");
        RDom r(0, slices, "slice");
        depth_search(x, y) = Tuple(0, std::numeric_limits<int32_t>::max());
        Expr better = aggregated(x, y, r) < depth_search(x, y)[1];
        depth_search(x, y) =
            Tuple(select(better, r, depth_search(x, y)[0]), select(better, aggregated(x, y, r), depth_search(x, y)[1]));
        Func depth("depth");
        depth(x, y) = depth_search(x, y)[0];

        Func radius("radius");
        radius(x, y) = min(cast<float>(abs(depth(x, y) - focus_depth)) * blur_radius_scale, float(kMaxRadius));

        RDom window(-kMaxRadius, 2 * kMaxRadius + 1, "window");
        Func worst_radius_x("worst_radius_x"), worst_radius("worst_radius");
        worst_radius_x(x, y) = 0.0f;
        worst_radius_x(x, y) = max(worst_radius_x(x, y), radius(x + window, y));
        worst_radius(x, y) = 0.0f;
        worst_radius(x, y) = max(worst_radius(x, y), worst_radius_x(x, y + window));

        // The pixel itself (weight 1) plus the aperture taps; channel 3 sums
        // the weights.
        Func rgbw("rgbw");
        rgbw(x, y, c) = select(c == 3, 1.0f, cast<float>(left_c(x, y, c)));

        // The aperture pattern as a small table: aperture(t, 0) and
        // aperture(t, 1) are tap t's u and v.
        std::vector<Expr> tap_u, tap_v;
        for (const lens_blur::ApertureTap &tap : lens_blur::aperture_taps(samples)) {
            tap_u.push_back(tap.u);
            tap_v.push_back(tap.v);
        }
        Func aperture("aperture");
        aperture(t, d) = select(d == 0, mux(t, tap_u), mux(t, tap_v));

        RDom s(0, samples, "tap");
        // Offsets in whole pixels: the tap (Q8) times the worst radius (in
        // half pixels), floored. The clamps bound the reach for Halide's
        // bounds inference; they never bind.
        const int scale = lens_blur::kApertureScale;
        Expr half_pixels = clamp(cast<int>(worst_radius(x, y) * 2.0f), 0, 2 * kMaxRadius);
        Expr du = clamp(aperture(s, 0), -scale, scale) * half_pixels / (2 * scale);
        Expr dv = clamp(aperture(s, 1), -scale, scale) * half_pixels / (2 * scale);
        Expr sx = x + du, sy = y + dv;
        Expr distance2 = cast<float>(du * du + dv * dv);
        Expr covers_this_pixel = distance2 < radius(sx, sy) * radius(sx, sy);
        Expr within_own_disk = distance2 < radius(x, y) * radius(x, y);
        Expr nearer = depth(sx, sy) > depth(x, y);
        Expr weight = select(covers_this_pixel && (within_own_disk || nearer), 1.0f, 0.0f);
        Func blurred("blurred");
        blurred(x, y, c) = rgbw(x, y, c);
        blurred(x, y, c) += weight * rgbw(sx, sy, c);

        output(x, y, c) = blurred(x, y, c) / blurred(x, y, 3);

        strata::dsl::estimate_extents(left, {1536, 2560, 3});
        strata::dsl::estimate_extents(right, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});
        focus_depth.set_estimate(13);
        blur_radius_scale.set_estimate(0.5f);

        if (!using_autoscheduler()) {
            schedule_manually(cost, cost_x, aggregated, depth_search, worst_radius_x, worst_radius, aperture, blurred);
        }
    }

private:
    // Depth, worst radius and blur are a kernel each (plus the two
    // reductions' initializations and the tiny aperture table).
    // Depth: per 32×8 tile, the slices run serially; for each, the cost and
    // its row sums over the tile and its aggregation halo are staged in
    // shared memory, the column sum is formed in registers, and the running
    // minimum stays in registers — the 32-slice cost volume never reaches
    // global memory. Worst radius: per tile, row maxima in shared memory.
    // Blur: per output pixel, all four accumulators in registers, a loop
    // over the taps reading the (cached) aperture table. Unrolling the taps
    // into constants would save those loads but makes a kernel that takes
    // PoCL half a minute to compile.
    void schedule_manually(Func cost, Func cost_x, Func aggregated, Func depth_search, Func worst_radius_x,
                           Func worst_radius, Func aperture, Func blurred) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        const RVar slice = depth_search.rvars()[0];

        depth_search.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        depth_search.update()
            .tile(x, y, xo, yo, xi, yi, 32, 8)
            .reorder(xi, yi, slice, xo, yo)
            .gpu_blocks(xo, yo)
            .gpu_threads(xi, yi);
        for (Func stage : {cost, cost_x}) {
            Var sx = stage.args()[0], sy = stage.args()[1];
            stage.compute_at(depth_search, slice).gpu_threads(sx, sy);
            if (stage.has_update_definition()) {
                stage.update().unroll(stage.rvars()[0]).gpu_threads(sx, sy);
            }
        }
        aggregated.compute_at(depth_search, xi);
        aggregated.update().unroll(aggregated.rvars()[0]);

        worst_radius.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        worst_radius.update().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        worst_radius_x.compute_at(worst_radius, xo).gpu_threads(x, y);
        worst_radius_x.update().gpu_threads(x, y);

        Var to("to"), ti("ti");
        aperture.compute_root().gpu_tile(t, to, ti, 32).gpu_blocks(d);

        output.compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        const RVar tap = blurred.rvars()[0];
        blurred.compute_at(output, xi).bound(c, 0, 4).unroll(c);
        blurred.update().reorder(c, tap).unroll(c);
    }

    Var x{"x"}, y{"y"}, z{"z"}, c{"c"}, t{"t"}, d{"d"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LensBlur, lens_blur)
