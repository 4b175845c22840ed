// Histogram: counting an image's values into bins, the cumulative
// distribution of the counts, and histogram equalization (every value mapped
// through the normalized cumulative distribution, which spreads the values
// evenly over the range).
//
// histogram() is an RDom reduction over an (x, y) region whose stores go to
// data-dependent bins: hist(bin_index(x, y)) += 1. Bin indices are clamped
// into [0, bins), so outliers count in the first or last bin and every store
// stays inside the histogram. Dimensions after (x, y) of the bin index (e.g.
// channels) pass through: bin_index(x, y, c) gives hist(b, c).
//
// Example:
//   Halide::Func level = strata::dsl::image::quantize(gray, 0.0f, 1.0f, 256, "level");  // int32 bin per pixel
//   Halide::Region xy = {{0, input.dim(0).extent()}, {0, input.dim(1).extent()}};
//   Halide::Func counts = strata::dsl::image::histogram(level, 256, xy, "counts");
//   Halide::Func cdf = strata::dsl::image::cumulative(counts, 256, "cdf");
//   Halide::Expr pixels = input.dim(0).extent() * input.dim(1).extent();
//   Halide::Func flat = strata::dsl::image::equalize(level, cdf, 256, pixels, "flat");  // float in [0, 255]
//   // or, all three at once: histogram_equalize(level, 256, xy, "flat") (Funcs flat_hist, flat_cdf, flat).
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

// The int32 bin of each value of `values` when [lo, hi) is cut into `bins`
// equal bins: floor((v - lo) * bins / (hi - lo)), clamped into [0, bins).
Halide::Func quantize(const Halide::Func &values, float lo, float hi, int bins, const std::string &name = "quantize");

// int32 counts hist(b, …) of the integer bin indices bin_index(x, y, …) over
// the region `xy` = {{x_min, x_extent}, {y_min, y_extent}}.
Halide::Func histogram(const Halide::Func &bin_index, int bins, const Halide::Region &xy,
                       const std::string &name = "histogram");

// The inclusive prefix sum cdf(b, …) = hist(0, …) + … + hist(b, …) over
// b in [0, bins), a scan along the bin dimension (dimension 0).
Halide::Func cumulative(const Halide::Func &hist, int bins, const std::string &name = "cumulative");

// float32 out(x, y, …) = cdf(bin, …) * (bins - 1) / total with bin = bin_index(x, y, …)
// clamped into [0, bins): the equalized level, in [0, bins - 1] when total is the pixel count.
Halide::Func equalize(const Halide::Func &bin_index, const Halide::Func &cdf, int bins, const Halide::Expr &total,
                      const std::string &name = "equalize");

// histogram (name + "_hist"), cumulative (name + "_cdf") and equalize (name)
// over the region `xy`, normalized by its pixel count.
Halide::Func histogram_equalize(const Halide::Func &bin_index, int bins, const Halide::Region &xy,
                                const std::string &name = "histogram_equalize");

}  // namespace strata::dsl::image
