// Color: conversions between color representations of (x, y, c) images —
// luminance, YCbCr, color matrices, tone curves through lookup tables, and
// conversions between integer codes and float intensities.
//
// Color images are Funcs (x, y, c, ...) with c in {0: R, 1: G, 2: B};
// dimensions after c pass through. Results are float32 unless said otherwise.
//
// Example:
//   namespace image = strata::dsl::image;
//   Halide::Func gray = image::luminance(rgb, "gray");   // (x, y)
//   Halide::Func linear = image::integer_to_float(rgb16, 1.0f / 65535, "linear");
//   Halide::Func corrected = image::apply_color_matrix(camera_rgb, matrix, "corrected");  // 10-bit codes
//   Halide::Func curve = image::tone_curve_lut(2.2f, 0.5f, 64, 1023, "curve");
//   Halide::Func toned = image::apply_lut(corrected, curve, 1024, "toned");              // in [0, 1]
//   Halide::Func bytes = image::float_to_integer(toned, Halide::UInt(8), 255.0f, "bytes");
#pragma once

#include "Halide.h"

#include <array>
#include <string>

namespace strata::dsl::image {

// Rec. 601 luma of an (x, y, c) image; float32 result over (x, y).
Halide::Func luminance(const Halide::Func &rgb, const std::string &name = "luminance");

// Full-range Rec. 601 YCbCr (as in JPEG/JFIF) without offsets: c = {0: Y,
// 1: Cb, 2: Cr}, Y in the range of the RGB values, Cb and Cr centered on 0.
Halide::Func rgb_to_ycbcr(const Halide::Func &rgb, const std::string &name = "rgb_to_ycbcr");
// The inverse of rgb_to_ycbcr.
Halide::Func ycbcr_to_rgb(const Halide::Func &ycbcr, const std::string &name = "ycbcr_to_rgb");

// out(x, y, c) = sum_k matrix(k, c) * rgb(x, y, k) + matrix(3, c): a 3×4
// matrix as a Func over (column, row) — for example an Input<Buffer<float>>
// of extents {4, 3} — whose last column is an offset.
Halide::Func apply_color_matrix(const Halide::Func &rgb, const Halide::Func &matrix,
                                const std::string &name = "apply_color_matrix");
// The same with a constant matrix, given row by row.
Halide::Func apply_color_matrix(const Halide::Func &rgb, const std::array<float, 12> &rows,
                                const std::string &name = "apply_color_matrix");

// A tone curve as a lookup table over integer codes: code i maps to
// t = clamp((i - black_level) / (white_level - black_level), 0, 1), then
// g = t^(1 / gamma), then an S-curve of strength `contrast` in [0, 1]:
// out(i) = g + contrast * (g²(3 - 2g) - g). Float32 in [0, 1]. The Func is
// defined for every i; schedule it over the codes apply_lut reads.
Halide::Func tone_curve_lut(const Halide::Expr &gamma, const Halide::Expr &contrast, const Halide::Expr &black_level,
                            const Halide::Expr &white_level, const std::string &name = "tone_curve_lut");

// Looks every value of `input` up in `lut`, whose entries 0 … size - 1 are
// read. Integer values are clamped to that range and looked up; float values
// are clamped and interpolated linearly between neighboring entries, so that
// the result is continuous in the input.
Halide::Func apply_lut(const Halide::Func &input, const Halide::Func &lut, int size,
                       const std::string &name = "apply_lut");

// cast<float>(input) * scale: integer codes to float intensities.
Halide::Func integer_to_float(const Halide::Func &input, float scale, const std::string &name = "integer_to_float");

// input * scale, rounded to the nearest integer (ties to even) and clamped to
// the range of the integer `type`: float intensities to integer codes.
Halide::Func float_to_integer(const Halide::Func &input, Halide::Type type, float scale,
                              const std::string &name = "float_to_integer");

}  // namespace strata::dsl::image
