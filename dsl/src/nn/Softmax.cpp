#include "strata/dsl/nn/Softmax.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

#include <limits>

namespace strata::dsl::nn {

Halide::Expr lowest_float() {
    // Finite, unlike -inf, so that lowest - max stays well defined under fast math.
    return Halide::Expr(std::numeric_limits<float>::lowest());
}

Halide::Func softmax(const Halide::Func &input, int axis, const Halide::Expr &extent, const std::string &name) {
    const std::string op = "softmax '" + name + "'";
    require_dimensions(input, 1, op);
    require(axis >= 0 && axis < input.dimensions(), op + ": axis " + std::to_string(axis) +
                                                       " is not a dimension of '" + input.name() + "' (" +
                                                       std::to_string(input.dimensions()) + " dimensions)");
    require(extent.defined(), op + ": the extent of axis " + std::to_string(axis) + " of '" + input.name() +
                                  "' (the reduction extent) is needed");

    std::vector<Halide::Var> v = pure_vars(input, name);
    std::vector<Halide::Var> rest = v;
    rest.erase(rest.begin() + axis);
    const auto at = [&](const Halide::Func &f, const Halide::Expr &along_axis) {
        return replaced(f, v, axis, along_axis);
    };

    Halide::Func row_max(name + "_max");
    Halide::RDom rm(0, extent, name + "_max_r");
    row_max(rest) = lowest_float();
    row_max(rest) = Halide::max(row_max(rest), Halide::cast<float>(at(input, rm)));

    Halide::Func exp_shifted(name + "_exp");
    exp_shifted(v) = Halide::exp(Halide::cast<float>(input(v)) - row_max(rest));

    Halide::Func row_sum(name + "_sum");
    Halide::RDom rs(0, extent, name + "_sum_r");
    row_sum(rest) = 0.0f;
    row_sum(rest) += at(exp_shifted, rs);

    Halide::Func out(name);
    out(v) = exp_shifted(v) / row_sum(rest);
    return out;
}

}  // namespace strata::dsl::nn
