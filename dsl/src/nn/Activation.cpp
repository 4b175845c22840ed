#include "strata/dsl/nn/Activation.h"

#include "strata/dsl/FuncShape.h"

#include <cmath>
#include <functional>

namespace strata::dsl::nn {

namespace {

Halide::Func elementwise(const Halide::Func &input, const std::string &op, const std::string &name,
                         const std::function<Halide::Expr(const Halide::Expr &)> &f) {
    require_dimensions(input, 1, op + " '" + name + "'");
    std::vector<Halide::Var> v = pure_vars(input, name);
    Halide::Func out(name);
    out(v) = f(input(v));
    return out;
}

}  // namespace

Halide::Expr relu(const Halide::Expr &x) {
    return Halide::max(Halide::cast<float>(x), 0.0f);
}

Halide::Expr gelu(const Halide::Expr &x, Gelu form) {
    const Halide::Expr v = Halide::cast<float>(x);
    if (form == Gelu::Erf) return 0.5f * v * (1.0f + Halide::erf(v * float(1.0 / std::sqrt(2.0))));
    const float k = float(std::sqrt(2.0 / M_PI));
    return 0.5f * v * (1.0f + Halide::tanh(k * (v + 0.044715f * v * v * v)));
}

Halide::Expr sigmoid(const Halide::Expr &x) {
    return 1.0f / (1.0f + Halide::exp(-Halide::cast<float>(x)));
}

Halide::Func relu(const Halide::Func &input, const std::string &name) {
    return elementwise(input, "relu", name, [](const Halide::Expr &x) { return relu(x); });
}

Halide::Func gelu(const Halide::Func &input, Gelu form, const std::string &name) {
    return elementwise(input, "gelu", name, [form](const Halide::Expr &x) { return gelu(x, form); });
}

Halide::Func sigmoid(const Halide::Func &input, const std::string &name) {
    return elementwise(input, "sigmoid", name, [](const Halide::Expr &x) { return sigmoid(x); });
}

}  // namespace strata::dsl::nn
