// MinMaxFilter: the maximum or minimum over a (2 radius + 1)-wide window
// along one dimension, and over a (2 radius + 1)² square as a pass along y
// followed by a pass along x (max and min are separable, like a box sum).
//
// Two algorithms compute the same result:
//  - WindowMethod::Direct reduces over the window with an RDom: 2 radius
//    comparisons per output, no intermediate storage.
//  - WindowMethod::Running is the van Herk / Gil-Werman running max: the
//    dimension is cut into blocks as long as the window, a prefix scan and a
//    suffix scan run inside each block (Funcs name + "_prefix" and
//    name + "_suffix", indexed (…, offset in block, block, …)), and every
//    window, which straddles at most two adjacent blocks, is the larger of
//    one suffix and one prefix value: about 3 comparisons per output at any
//    radius, and blocks are independent, so the scans parallelize over them.
//
// Inputs are read up to `radius` beyond the requested region (the running
// method up to a whole window beyond it), so bound the input first, e.g. with
// Halide::BoundaryConditions::repeat_edge. Results keep the input's type.
//
// Example:
//   Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(input);
//   Halide::Func dilated = strata::dsl::image::max_filter(clamped, 26, "dilated",
//                                                         strata::dsl::image::WindowMethod::Running);
//   // dilated_y (the vertical pass) feeds dilated (the horizontal pass).
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

enum class WindowMethod { Direct, Running };

// out(…, i, …) = max over i - radius <= j <= i + radius of input(…, j, …), with i in dimension `dim`.
Halide::Func max_filter_1d(const Halide::Func &input, int dim, int radius, const std::string &name = "max_filter_1d",
                           WindowMethod method = WindowMethod::Direct);
Halide::Func min_filter_1d(const Halide::Func &input, int dim, int radius, const std::string &name = "min_filter_1d",
                           WindowMethod method = WindowMethod::Direct);

// The square window: along y into name + "_y", then along x into `name`.
Halide::Func max_filter(const Halide::Func &input, int radius, const std::string &name = "max_filter",
                        WindowMethod method = WindowMethod::Direct);
Halide::Func min_filter(const Halide::Func &input, int radius, const std::string &name = "min_filter",
                        WindowMethod method = WindowMethod::Direct);

}  // namespace strata::dsl::image
