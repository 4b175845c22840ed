#include "strata/dsl/nn/Upsample.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

namespace {

// Doubles dimension `dim` of `input` (whose extent there is `extent`) by linear interpolation.
Halide::Func interpolate2x(const Halide::Func &input, Layout layout, int dim, const Halide::Expr &extent,
                           const std::string &name) {
    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var o = v[dim];
    const Halide::Expr i = o / 2;
    const Halide::Expr neighbour = Halide::select(o % 2 == 0, i - 1, i + 1);
    // Clamping both reads keeps the input's required region inside [0, extent).
    const Halide::Expr near = Halide::cast<float>(replaced(input, v, dim, Halide::clamp(i, 0, extent - 1)));
    const Halide::Expr far = Halide::cast<float>(replaced(input, v, dim, Halide::clamp(neighbour, 0, extent - 1)));
    Halide::Func out(name);
    out(v) = 0.75f * near + 0.25f * far;
    return out;
}

}  // namespace

Halide::Func upsample_nearest2x(const Halide::Func &input, Layout layout, const std::string &name) {
    require_feature_map(input, "upsample_nearest2x '" + name + "'");
    std::vector<Halide::Var> v = layout_vars(layout, name);
    std::vector<Halide::Expr> source = as_exprs(v);
    source[width_dim(layout)] = v[width_dim(layout)] / 2;
    source[height_dim(layout)] = v[height_dim(layout)] / 2;
    Halide::Func out(name);
    out(v) = input(source);
    return out;
}

Halide::Func upsample_bilinear2x(const Halide::Func &input, const FeatureExtents &in, Layout layout,
                                 const std::string &name) {
    const std::string op = "upsample_bilinear2x '" + name + "'";
    require_feature_map(input, op);
    require(in.width.defined() && in.height.defined(),
            op + ": the width and height of '" + input.name() + "' are needed to repeat its edge");
    Halide::Func wide = interpolate2x(input, layout, width_dim(layout), in.width, name + "_x");
    return interpolate2x(wide, layout, height_dim(layout), in.height, name);
}

}  // namespace strata::dsl::nn
