#include "strata/dsl/nn/Bias.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func bias_add(const Halide::Func &input, const Halide::Func &bias, int axis, const std::string &name) {
    const std::string op = "bias_add '" + name + "'";
    require_dimensions(input, 1, op);
    require(axis >= 0 && axis < input.dimensions(), op + ": axis " + std::to_string(axis) + " is not a dimension of '" +
                                                       input.name() + "' (" + std::to_string(input.dimensions()) +
                                                       " dimensions)");
    require(bias.defined() && bias.dimensions() == 1,
            op + ": the bias must be a 1-D Func" + (bias.defined() ? ", '" + bias.name() + "' is not" : ""));
    std::vector<Halide::Var> v = pure_vars(input, name);
    Halide::Func out(name);
    out(v) = Halide::cast<float>(input(v)) + Halide::cast<float>(bias(v[axis]));
    return out;
}

Halide::Func bias_add(const Halide::Func &input, const Halide::Func &bias, Layout layout, const std::string &name) {
    require_feature_map(input, "bias_add '" + name + "'");
    return bias_add(input, bias, channel_dim(layout), name);
}

}  // namespace strata::dsl::nn
