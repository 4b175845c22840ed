#include "strata/dsl/nn/Layout.h"

#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

int width_dim(Layout layout) {
    return layout == Layout::NCHW ? 0 : 1;
}

int height_dim(Layout layout) {
    return layout == Layout::NCHW ? 1 : 2;
}

int channel_dim(Layout layout) {
    return layout == Layout::NCHW ? 2 : 0;
}

const char *to_string(Layout layout) {
    return layout == Layout::NCHW ? "NCHW" : "NHWC";
}

std::vector<Halide::Var> layout_vars(Layout layout, const std::string &prefix) {
    const Halide::Var x(prefix + "_x"), y(prefix + "_y"), c(prefix + "_c"), n(prefix + "_n");
    if (layout == Layout::NCHW) return {x, y, c, n};
    return {c, x, y, n};
}

std::vector<Halide::Expr> layout_args(Layout layout, const Halide::Expr &x, const Halide::Expr &y,
                                      const Halide::Expr &c, const Halide::Expr &n) {
    if (layout == Layout::NCHW) return {x, y, c, n};
    return {c, x, y, n};
}

void require_feature_map(const Halide::Func &f, const std::string &op) {
    require(f.defined(), op + ": the input Func is undefined");
    require(f.dimensions() == 4, op + ": Func '" + f.name() + "' has " + std::to_string(f.dimensions()) +
                                     " dimensions; a feature map has 4 (NCHW = (w, h, c, n), NHWC = (c, w, h, n))");
}

}  // namespace strata::dsl::nn
