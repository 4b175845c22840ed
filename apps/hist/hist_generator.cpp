// hist: histogram equalization of an RGB image's luminance, as in the hist
// benchmark of the Halide literature. uint8 RGB in, uint8 RGB out.
//
// The luma Y is the JFIF (Rec. 601) weighting in 8-bit fixed point, an
// integer in [0, 255], so the histogram is exact on every device. Its
// 256-bin histogram over the whole image gives the cumulative distribution,
// and each Y is replaced by its equalized level cdf(Y) · 255 / pixels. The
// chroma (Cb, Cr, JFIF, in float) is kept: the output is the JFIF inverse
// transform of (equalized Y, Cb, Cr), rounded and saturated to uint8.
//
// Stages: luma (inlined) → hist (a reduction over all pixels into
// data-dependent bins) → cdf (a 256-step scan) → equalized (a data-dependent
// gather from the cdf, inlined) → output. Estimates: 1536×2560×3.
//
// Notable structure: a full reduction of the image into 256 bins whose
// stores collide, and a lookup table indexed by pixel values.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/Histogram.h"

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

constexpr int kLevels = 256;

class Hist : public Generator<Hist> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        auto channel = [&](int c) { return cast<int>(input(x, y, c)); };
        auto channel_f = [&](int c) { return cast<float>(input(x, y, c)); };
        Func luma("luma");
        luma(x, y) = (77 * channel(0) + 150 * channel(1) + 29 * channel(2) + 128) >> 8;

        Func cb("cb"), cr("cr");
        cb(x, y) = 128.0f - 0.168736f * channel_f(0) - 0.331264f * channel_f(1) + 0.5f * channel_f(2);
        cr(x, y) = 128.0f + 0.5f * channel_f(0) - 0.418688f * channel_f(1) - 0.081312f * channel_f(2);

        const Region whole = {{input.dim(0).min(), input.dim(0).extent()}, {input.dim(1).min(), input.dim(1).extent()}};
        Func hist = image::histogram(luma, kLevels, whole, "hist");
        Func cdf = image::cumulative(hist, kLevels, "cdf");
        Func equalized = image::equalize(luma, cdf, kLevels, whole[0].extent * whole[1].extent, "equalized");

        const Expr yv = equalized(x, y), u = cb(x, y) - 128.0f, v = cr(x, y) - 128.0f;
        const Expr rgb = mux(c, {yv + 1.402f * v, yv - 0.344136f * u - 0.714136f * v, yv + 1.772f * u});
        output(x, y, c) = cast<uint8_t>(clamp(round(rgb), 0.0f, 255.0f));

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});

        if (!using_autoscheduler()) schedule_manually(hist, cdf);
    }

private:
    // Five kernels: zeroing the 256 bins, the histogram, the cdf's copy and
    // scan, and the output.
    // 1. The histogram, hierarchically: rfactor splits the pixel reduction
    //    into strips of 16 rows, partial(bin, strip). Each block takes one
    //    strip: its 256 threads zero a 256-bin partial histogram in shared
    //    memory, count the strip's pixels into it with shared-memory atomics
    //    (a row of 256 consecutive pixels per step, coalesced), then add it
    //    to the global histogram, one global atomic per bin and block.
    // 2. cdf: the copy of the 256 bins in parallel, then the scan on one
    //    thread (255 dependent adds: shorter than any parallel scan's launch).
    // 3. output: 32×8 tiles with the channels unrolled; each block first
    //    copies the 1 KB cdf into shared memory, so the per-pixel lookups
    //    are shared-memory gathers. Luma and chroma are recomputed inline.
    void schedule_manually(Func hist, Func cdf) {
        Var bin = hist.args()[0];
        RVar rx = hist.rvars()[0], ry = hist.rvars()[1];
        RVar strip("strip"), row("row"), rxo("rxo"), rxi("rxi");
        Var u("u"), bo("bo"), bi("bi");
        hist.compute_root().split(bin, bo, bi, kLevels).gpu_blocks(bo).gpu_threads(bi);
        hist.update().split(ry, strip, row, 16);
        Func partial = hist.update().rfactor(strip, u);
        // After rfactor the global update reduces over the strips. (Name it
        // by `strip` itself: the RVar that hist.rvars() returns now carries a
        // qualified name that Halide's schedule calls rejected in Halide 14.)
        hist.update().atomic().reorder(bin, strip).gpu_blocks(strip).gpu_threads(bin);
        partial.compute_at(hist, strip).gpu_threads(partial.args()[0]);
        partial.update()
            .atomic()
            .split(rx, rxo, rxi, kLevels, TailStrategy::GuardWithIf)
            .reorder(rxi, rxo, row)
            .gpu_threads(rxi);

        cdf.compute_root().split(cdf.args()[0], bo, bi, kLevels).gpu_blocks(bo).gpu_threads(bi);
        cdf.update().gpu_single_thread();

        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.compute_root()
            .bound(c, 0, 3)
            .reorder(c, x, y)
            .unroll(c)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        Func table = cdf.in();
        // The 256 entries as 32×8, the shape of the tile's threads.
        Var to("to"), ti("ti");
        table.compute_at(output, xo).split(table.args()[0], to, ti, 32).gpu_threads(ti, to);
    }

    Var x{"x"}, y{"y"}, c{"c"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Hist, hist)
