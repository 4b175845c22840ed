#include "strata/dsl/nn/Padding.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func pad_spatial(const Halide::Func &input, Layout layout, const Halide::Expr &width,
                         const Halide::Expr &height, const Halide::Expr &value, const std::string &name) {
    require_feature_map(input, "pad_spatial '" + name + "'");
    require(width.defined() && height.defined(),
            "pad_spatial '" + name + "': the width and height of '" + input.name() + "' are needed");
    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var x = v[width_dim(layout)], y = v[height_dim(layout)];
    // Clamping the coordinates (not just selecting) is what keeps the
    // producer's required region inside its bounds.
    std::vector<Halide::Expr> inside = as_exprs(v);
    inside[width_dim(layout)] = Halide::clamp(x, 0, width - 1);
    inside[height_dim(layout)] = Halide::clamp(y, 0, height - 1);
    const Halide::Expr in_bounds = x >= 0 && x < width && y >= 0 && y < height;
    const Halide::Type type = input.types()[0];
    Halide::Func padded(name);
    padded(v) = Halide::select(Halide::likely(in_bounds), input(inside), Halide::cast(type, value));
    return padded;
}

Halide::Func pad_for_window(const Halide::Func &input, const FeatureExtents &in, const Window2d &window,
                            Layout layout, const Halide::Expr &value, const std::string &consumer) {
    if (window.padding == 0) return input;
    require(in.width.defined() && in.height.defined(),
            "'" + consumer + "': padding " + std::to_string(window.padding) + " needs the width and height of '" +
                input.name() + "' (FeatureExtents::width, ::height)");
    return pad_spatial(input, layout, in.width, in.height, value, consumer + "_padded");
}

}  // namespace strata::dsl::nn
