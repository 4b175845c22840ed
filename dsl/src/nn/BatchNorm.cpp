#include "strata/dsl/nn/BatchNorm.h"

#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func batch_norm(const Halide::Func &input, const Halide::Func &mean, const Halide::Func &variance,
                        const Halide::Func &gamma, const Halide::Func &beta, float epsilon, Layout layout,
                        const std::string &name) {
    const std::string op = "batch_norm '" + name + "'";
    require_feature_map(input, op);
    const char *const param_names[] = {"mean", "variance", "gamma", "beta"};
    const Halide::Func params[] = {mean, variance, gamma, beta};
    for (int p = 0; p < 4; ++p) {
        require(params[p].defined() && params[p].dimensions() == 1,
                op + ": the " + param_names[p] + " must be a 1-D Func over the channels" +
                    (params[p].defined() ? ", '" + params[p].name() + "' is not" : ""));
    }
    require(epsilon > 0, op + ": epsilon must be positive, got " + std::to_string(epsilon));

    Halide::Var c(name + "_c");
    Halide::Func scale(name + "_scale"), shift(name + "_shift");
    scale(c) = Halide::cast<float>(gamma(c)) / Halide::sqrt(Halide::cast<float>(variance(c)) + epsilon);
    shift(c) = Halide::cast<float>(beta(c)) - Halide::cast<float>(mean(c)) * scale(c);

    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var channel = v[channel_dim(layout)];
    Halide::Func out(name);
    out(v) = Halide::cast<float>(input(v)) * scale(channel) + shift(channel);
    return out;
}

}  // namespace strata::dsl::nn
