// Demosaic: full-color images from a Bayer color-filter-array mosaic.
//
// A Bayer mosaic repeats a 2×2 quad of color sites; BayerPattern names the
// colors of the quad's sites in reading order — (0, 0), (1, 0), (0, 1),
// (1, 1) — so GRBG has green at (0, 0), red at (1, 0), blue at (0, 1) and
// green at (1, 1) of every quad whose corner has even coordinates.
//
// The interpolation works quad by quad: the mosaic is first split into four
// half-resolution planes, one per site (Func name + "_deinterleaved", (x, y, q)
// with q = site index), then all three colors of all four sites of a quad are
// computed from those planes (Func name + "_quads", (x, y, c, q), float32), and
// the result gathers them back to full resolution (Func name, (x, y, c) with
// c in {0: R, 1: G, 2: B}, float32). Computing by quad keeps the per-site
// choice of filter out of the inner loops: a schedule that unrolls c and q of
// name + "_quads" evaluates each filter exactly where it applies.
//
// Dimensions after (x, y) pass through: a mosaic (x, y, n) gives (x, y, c, n).
// The filters read the mosaic up to 2 pixels beyond the output, so bound it
// first (for example with Halide::BoundaryConditions::mirror_interior, which
// keeps the color of every site) when it is an image parameter.
//
// Example:
//   Halide::Func bounded = Halide::BoundaryConditions::mirror_interior(raw);
//   Halide::Func rgb = strata::dsl::image::demosaic_malvar(
//       bounded, strata::dsl::image::BayerPattern::GRBG, "rgb");
//   Halide::Func quads = strata::dsl::find_stage(rgb, "rgb_quads");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

enum class BayerPattern { RGGB, GRBG, GBRG, BGGR };

// The four half-resolution planes of a mosaic:
// out(x, y, q, ...) = mosaic(2 x + q % 2, 2 y + q / 2, ...), in the mosaic's type.
Halide::Func deinterleave_bayer(const Halide::Func &mosaic, const std::string &name = "deinterleave_bayer");

// Bilinear interpolation: a missing color is the mean of its nearest two or
// four sites of that color (3×3 support).
Halide::Func demosaic_bilinear(const Halide::Func &mosaic, BayerPattern pattern,
                               const std::string &name = "demosaic");

// Gradient-corrected linear interpolation (Malvar, He, Cutler, ICASSP 2004):
// the bilinear estimate corrected by the Laplacian of the site's own color,
// with the paper's 5×5 filters (gains 1/2, 5/8 and 3/4).
Halide::Func demosaic_malvar(const Halide::Func &mosaic, BayerPattern pattern, const std::string &name = "demosaic");

}  // namespace strata::dsl::image
