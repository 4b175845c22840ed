#include "strata/dsl/nn/LayerNorm.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func layer_norm(const Halide::Func &input, const Halide::Func &gamma, const Halide::Func &beta,
                        const Halide::Expr &features, float epsilon, const std::string &name) {
    const std::string op = "layer_norm '" + name + "'";
    require_dimensions(input, 1, op);
    for (const Halide::Func &param : {gamma, beta}) {
        require(param.defined() && param.dimensions() == 1,
                op + ": gamma and beta must be 1-D Funcs over the features" +
                    (param.defined() ? ", '" + param.name() + "' is not" : ""));
    }
    require(features.defined(), op + ": the feature count of '" + input.name() + "' (the reduction extent) is needed");
    require(epsilon > 0, op + ": epsilon must be positive, got " + std::to_string(epsilon));

    std::vector<Halide::Var> v = pure_vars(input, name);
    const std::vector<Halide::Var> token(v.begin() + 1, v.end());
    const Halide::Var f = v[0];
    const Halide::Expr count = Halide::cast<float>(features);

    Halide::Func sum(name + "_sum");
    Halide::RDom rs(0, features, name + "_sum_r");
    sum(token) = 0.0f;
    sum(token) += Halide::cast<float>(replaced(input, v, 0, rs));

    Halide::Func mean(name + "_mean");
    mean(token) = sum(token) / count;

    Halide::Func centered(name + "_centered");
    centered(v) = Halide::cast<float>(input(v)) - mean(token);

    Halide::Func sq_sum(name + "_sq_sum");
    Halide::RDom rq(0, features, name + "_sq_sum_r");
    sq_sum(token) = 0.0f;
    const Halide::Expr deviation = replaced(centered, v, 0, rq);
    sq_sum(token) += deviation * deviation;

    Halide::Func inv_std(name + "_inv_std");
    inv_std(token) = 1.0f / Halide::sqrt(sq_sum(token) / count + epsilon);

    Halide::Func out(name);
    out(v) = centered(v) * inv_std(token) * Halide::cast<float>(gamma(f)) + Halide::cast<float>(beta(f));
    return out;
}

}  // namespace strata::dsl::nn
