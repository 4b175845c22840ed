#include "strata/dsl/nn/Residual.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func residual_add(const Halide::Func &a, const Halide::Func &b, const std::string &name) {
    const std::string op = "residual_add '" + name + "'";
    require_dimensions(a, 1, op);
    require_dimensions(b, 1, op);
    require(a.dimensions() == b.dimensions(), op + ": '" + a.name() + "' has " + std::to_string(a.dimensions()) +
                                                  " dimensions but '" + b.name() + "' has " +
                                                  std::to_string(b.dimensions()));
    std::vector<Halide::Var> v = pure_vars(a, name);
    Halide::Func out(name);
    out(v) = Halide::cast<float>(a(v)) + Halide::cast<float>(b(v));
    return out;
}

}  // namespace strata::dsl::nn
