// Window: the geometry of a square sliding window (convolution or pooling
// kernel) over the spatial dimensions of a feature map: its size, stride,
// zero padding on every side, and dilation, as in PyTorch's Conv2d and
// MaxPool2d.
//
// Output position o reads input positions o*stride + k*dilation - padding
// for k in [0, kernel).
//
// Example:
//   strata::dsl::nn::Window2d same3x3{3, 1, 1, 1};          // kernel 3, stride 1, padding 1
//   Halide::Expr out_w = strata::dsl::nn::output_extent(in_w, {2, 2, 0, 1});  // in_w / 2
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

struct Window2d {
    int kernel = 3;
    int stride = 1;
    int padding = 0;
    int dilation = 1;
};

// The number of window positions along an input extent:
// (input + 2 padding - dilation (kernel - 1) - 1) / stride + 1.
Halide::Expr output_extent(const Halide::Expr &input_extent, const Window2d &window);
int output_extent(int input_extent, const Window2d &window);

// The input coordinate that output coordinate `out` reads at kernel tap `tap`.
Halide::Expr input_coordinate(const Halide::Expr &out, const Halide::Expr &tap, const Window2d &window);

// Throws naming `op` unless the window is well-formed (kernel, stride,
// dilation positive; padding non-negative and smaller than the dilated kernel).
void require_valid(const Window2d &window, const std::string &op);

}  // namespace strata::dsl::nn
