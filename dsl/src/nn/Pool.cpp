#include "strata/dsl/nn/Pool.h"

#include "strata/dsl/nn/Padding.h"

#include <limits>

namespace strata::dsl::nn {

namespace {

// The window's element at tap r of output `v`, read from `source`.
Halide::Expr window_element(const Halide::Func &source, const std::vector<Halide::Var> &v, const Halide::RDom &r,
                            const Window2d &window, Layout layout) {
    const Halide::Expr sx = input_coordinate(v[width_dim(layout)], r.x, window);
    const Halide::Expr sy = input_coordinate(v[height_dim(layout)], r.y, window);
    return Halide::cast<float>(source(layout_args(layout, sx, sy, v[channel_dim(layout)], v[kBatchDim])));
}

}  // namespace

Halide::Func max_pool(const Halide::Func &input, const FeatureExtents &in, const Window2d &window, Layout layout,
                      const std::string &name) {
    const std::string op = "max_pool '" + name + "'";
    require_feature_map(input, op);
    require_valid(window, op);
    const Halide::Expr lowest(std::numeric_limits<float>::lowest());
    const Halide::Func source = pad_for_window(input, in, window, layout, lowest, name);
    std::vector<Halide::Var> v = layout_vars(layout, name);
    Halide::RDom r({{0, window.kernel}, {0, window.kernel}}, name + "_r");
    Halide::Func out(name);
    out(v) = lowest;
    out(v) = Halide::max(out(v), window_element(source, v, r, window, layout));
    return out;
}

Halide::Func avg_pool(const Halide::Func &input, const FeatureExtents &in, const Window2d &window, Layout layout,
                      const std::string &name) {
    const std::string op = "avg_pool '" + name + "'";
    require_feature_map(input, op);
    require_valid(window, op);
    const Halide::Func source = pad_for_window(input, in, window, layout, 0.0f, name);
    std::vector<Halide::Var> v = layout_vars(layout, name);
    Halide::RDom r({{0, window.kernel}, {0, window.kernel}}, name + "_r");
    Halide::Func sum(name + "_sum");
    sum(v) = 0.0f;
    sum(v) += window_element(source, v, r, window, layout);
    Halide::Func out(name);
    out(v) = sum(v) * (1.0f / float(window.kernel * window.kernel));
    return out;
}

}  // namespace strata::dsl::nn
