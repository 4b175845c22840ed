// BilateralGrid: the bilateral grid of Chen, Paris and Durand (2007): an
// image lifted into a coarse 3-D grid over (x / s, y / s, intensity / r),
// processed there, and sliced back to full resolution by trilinear
// interpolation at each pixel's (x, y, intensity). Filtering the grid
// spatially then averages only pixels that are close both in space and in
// intensity, which is edge-aware smoothing at the cost of a small grid.
//
// Geometry: grid cell (gx, gy) gathers the s×s pixels x in
// [gx s - s/2, gx s - s/2 + s) (s/2 rounded down), likewise for y, so cell
// centres sit on pixel gx s (half a pixel before it when s is even), where
// the slice puts grid node gx. Intensities are clamped to [0, 1]; cell gz
// holds the pixels whose intensity rounds to gz r, gz in [0, Z] with
// Z = ceil(1 / r). The clamp is what bounds the data-dependent z stores of
// the splat and z loads of the slice. Grid dimensions after z (the splatted
// quantities, dimension 3) pass through the blur and the slice.
//
// The splat reads its inputs up to s/2 + 2 s pixels outside the requested
// region once the grid is blurred, so bound them first (for example with
// Halide::BoundaryConditions::repeat_edge).
//
// Example:
//   Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(gray);
//   Halide::Func smooth = strata::dsl::image::bilateral_filter(clamped, 8, 0.1f, "smooth");
//   // Stages: smooth_grid (splat), smooth_blur_z, smooth_blur_x, smooth_blur_y, smooth_slice, smooth.
//
//   // The parts, for other uses of the grid (e.g. bilateral guided upsampling):
//   Halide::Func grid = strata::dsl::image::bilateral_grid(values, guide, 8, 0.1f, "grid");  // splat values(x, y, k)
//   Halide::Func blurred = strata::dsl::image::bilateral_grid_blur(grid, "blurred");
//   Halide::Func at_pixels = strata::dsl::image::bilateral_grid_slice(blurred, guide, 8.0f, 0.1f, 0.0f, "sliced");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::image {

// Z, the last z cell of a grid with range step `range`: ceil(1 / range).
int bilateral_grid_depth(float range);

// The grid itself, by splatting: float32 grid(gx, gy, gz, k) = the sum of
// values(x, y, k) over the pixels (x, y) of cell (gx, gy) whose clamped
// guide(x, y) rounds to z cell gz (an RDom reduction over the s×s pixels of
// each cell with a data-dependent z).
Halide::Func bilateral_grid(const Halide::Func &values, const Halide::Func &guide, int spatial, float range,
                            const std::string &name = "bilateral_grid");

// The normalized binomial blur (1 4 6 4 1) / 16 of a grid along one of its
// first three dimensions (0: x, 1: y, 2: z).
Halide::Func bilateral_grid_blur_dim(const Halide::Func &grid, int dim,
                                     const std::string &name = "bilateral_grid_blur_dim");

// The binomial blur along z (name + "_z"), then x (name + "_x"), then y (name).
Halide::Func bilateral_grid_blur(const Halide::Func &grid, const std::string &name = "bilateral_grid_blur");

// out(x, y, k…) = the trilinear interpolation of grid(·, ·, ·, k…) at
// ((x + pixel_offset) / spatial, (y + pixel_offset) / spatial, clamp(guide(x, y), 0, 1) / range).
// A grid splatted from this image has spatial = s and pixel_offset = 0; a
// grid splatted from an image f times smaller (pixel centres aligned) has
// spatial = f s and pixel_offset = (1 - f) / 2.
Halide::Func bilateral_grid_slice(const Halide::Func &grid, const Halide::Func &guide, float spatial, float range,
                                  float pixel_offset, const std::string &name = "bilateral_grid_slice");

// The bilateral filter of a single-channel (x, y) image through a grid:
// splat (value, 1) into name + "_grid", blur it (name + "_blur_z", "_blur_x",
// "_blur_y"), slice (name + "_slice") and divide the value by the weight.
Halide::Func bilateral_filter(const Halide::Func &input, int spatial, float range,
                              const std::string &name = "bilateral_filter");

}  // namespace strata::dsl::image
