// Layout: how the nn operators address 4-D feature maps, and the extents of a
// feature map that an operator cannot infer by itself.
//
// Halide's first dimension is the innermost (unit-stride) one, so framework
// layout names read backwards: NCHW is Func(w, h, c, n) and NHWC is
// Func(c, w, h, n). The batch is always dimension 3. Operators written once
// against (x, y, c, n) build their calls with `layout_args`.
//
// Example:
//   using strata::dsl::nn::Layout;
//   Halide::Expr v = input(strata::dsl::nn::layout_args(Layout::NHWC, x, y, c, n));  // input(c, x, y, n)
//   strata::dsl::nn::FeatureExtents in{input.dim(1).extent(), input.dim(2).extent(), input.dim(0).extent()};
#pragma once

#include "Halide.h"

#include <string>
#include <vector>

namespace strata::dsl::nn {

enum class Layout { NCHW, NHWC };

constexpr int kBatchDim = 3;

int width_dim(Layout layout);
int height_dim(Layout layout);
int channel_dim(Layout layout);
const char *to_string(Layout layout);

// Fresh Vars for a feature map's dimensions, in `layout`'s order, named
// prefix + "_x", "_y", "_c", "_n" after what they index.
std::vector<Halide::Var> layout_vars(Layout layout, const std::string &prefix);

// The call arguments of the element (x, y, c, n) in `layout`.
std::vector<Halide::Expr> layout_args(Layout layout, const Halide::Expr &x, const Halide::Expr &y,
                                      const Halide::Expr &c, const Halide::Expr &n);

// The sizes of an operator's input feature map that bound what it reads: the
// spatial extents (where zero padding starts) and the channel count (the
// extent of a reduction over channels). Operators that need none of them
// ignore the fields; undefined fields that an operator needs are an error.
struct FeatureExtents {
    Halide::Expr width;
    Halide::Expr height;
    Halide::Expr channels;
};

// Throws naming `op` and `f` unless f is a 4-D feature map.
void require_feature_map(const Halide::Func &f, const std::string &op);

}  // namespace strata::dsl::nn
