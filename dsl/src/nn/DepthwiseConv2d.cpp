#include "strata/dsl/nn/DepthwiseConv2d.h"

#include "strata/dsl/Require.h"
#include "strata/dsl/nn/Padding.h"

namespace strata::dsl::nn {

Halide::Func depthwise_conv2d(const Halide::Func &input, const Halide::Func &weights, const FeatureExtents &in,
                              const Window2d &window, Layout layout, const std::string &name) {
    const std::string op = "depthwise_conv2d '" + name + "'";
    require_feature_map(input, op);
    require(weights.defined(), op + ": the weights Func is undefined");
    require(weights.dimensions() == 3, op + ": weights '" + weights.name() + "' have " +
                                           std::to_string(weights.dimensions()) +
                                           " dimensions; depthwise weights are (kw, kh, c)");
    require_valid(window, op);

    const Halide::Func source = pad_for_window(input, in, window, layout, 0.0f, name);
    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var x = v[width_dim(layout)], y = v[height_dim(layout)], c = v[channel_dim(layout)];
    const Halide::Var n = v[kBatchDim];
    Halide::RDom r({{0, window.kernel}, {0, window.kernel}}, name + "_r");
    const Halide::Expr sx = input_coordinate(x, r.x, window), sy = input_coordinate(y, r.y, window);
    Halide::Func out(name);
    out(v) = 0.0f;
    out(v) +=
        Halide::cast<float>(source(layout_args(layout, sx, sy, c, n))) * Halide::cast<float>(weights(r.x, r.y, c));
    return out;
}

}  // namespace strata::dsl::nn
