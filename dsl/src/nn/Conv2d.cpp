#include "strata/dsl/nn/Conv2d.h"

#include "strata/dsl/Require.h"
#include "strata/dsl/nn/Padding.h"

namespace strata::dsl::nn {

Halide::Func conv2d(const Halide::Func &input, const Halide::Func &weights, const FeatureExtents &in,
                    const Window2d &window, Layout layout, const std::string &name) {
    const std::string op = "conv2d '" + name + "'";
    require_feature_map(input, op);
    require(weights.defined(), op + ": the weights Func is undefined");
    require(weights.dimensions() == 4, op + ": weights '" + weights.name() + "' have " +
                                           std::to_string(weights.dimensions()) +
                                           " dimensions; conv2d weights are (kw, kh, ci, co)");
    require(in.channels.defined(),
            op + ": the channel count of '" + input.name() + "' (the reduction extent) is needed");
    require_valid(window, op);

    const Halide::Func source = pad_for_window(input, in, window, layout, 0.0f, name);
    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var x = v[width_dim(layout)], y = v[height_dim(layout)], co = v[channel_dim(layout)];
    const Halide::Var n = v[kBatchDim];

    // The RDom's innermost dimension walks the input's unit stride.
    const int k = window.kernel;
    Halide::RDom r = layout == Layout::NCHW ? Halide::RDom({{0, k}, {0, k}, {0, in.channels}}, name + "_r")
                                            : Halide::RDom({{0, in.channels}, {0, k}, {0, k}}, name + "_r");
    const Halide::RVar rx = layout == Layout::NCHW ? r[0] : r[1];
    const Halide::RVar ry = layout == Layout::NCHW ? r[1] : r[2];
    const Halide::RVar rc = layout == Layout::NCHW ? r[2] : r[0];

    const Halide::Expr sx = input_coordinate(x, rx, window), sy = input_coordinate(y, ry, window);
    Halide::Func out(name);
    out(v) = 0.0f;
    out(v) += Halide::cast<float>(source(layout_args(layout, sx, sy, rc, n))) *
              Halide::cast<float>(weights(rx, ry, rc, co));
    return out;
}

}  // namespace strata::dsl::nn
