#include "strata/dsl/nn/Matmul.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

namespace {

// A pure copy of an operand, read in its place: free where an autoscheduler
// inlines it, and what it can stage in shared memory one chunk of k at a
// time (K-tiling) — a schedule can place a Func, never an input buffer.
Halide::Func operand(const Halide::Func &f, const std::string &name) {
    std::vector<Halide::Var> args;
    for (int d = 0; d < f.dimensions(); ++d) args.emplace_back(name + "_" + std::to_string(d));
    Halide::Func copy(name);
    copy(args) = f(args);
    return copy;
}

}  // namespace

Halide::Func matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                    const std::string &name) {
    require_dimensions(a, 2, "matmul");
    require_dimensions(b, 2, "matmul");
    Halide::Var n(name + "_n"), m(name + "_m");
    Halide::RDom k(0, k_extent, name + "_k");
    const Halide::Func lhs = operand(a, name + "_lhs"), rhs = operand(b, name + "_rhs");
    Halide::Func c(name);
    c(n, m) = Halide::cast(a.types()[0], 0);
    c(n, m) += lhs(k, m) * rhs(n, k);
    return c;
}

Halide::Func batched_matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                            const std::string &name, Transpose transpose) {
    const std::string op = "batched_matmul '" + name + "'";
    require_dimensions(a, 2, op);
    require_dimensions(b, 2, op);
    require(a.dimensions() == b.dimensions(), op + ": '" + a.name() + "' has " + std::to_string(a.dimensions()) +
                                                  " dimensions but '" + b.name() + "' has " +
                                                  std::to_string(b.dimensions()) + "; batch dimensions must match");
    require(k_extent.defined(), op + ": the reduction extent (the columns of '" + a.name() + "') is needed");

    std::vector<Halide::Var> v;
    v.emplace_back(name + "_n");
    v.emplace_back(name + "_m");
    for (int d = 2; d < a.dimensions(); ++d) v.emplace_back(name + "_b" + std::to_string(d - 2));
    Halide::RDom k(0, k_extent, name + "_k");

    std::vector<Halide::Expr> a_args = as_exprs(v), b_args = as_exprs(v);
    a_args[0] = k;  // a(k, m, batch...)
    if (transpose == Transpose::B) {
        b_args[0] = k;  // b(k, n, batch...)
        b_args[1] = v[0];
    } else {
        b_args[1] = k;  // b(n, k, batch...)
    }
    const Halide::Func lhs = operand(a, name + "_lhs"), rhs = operand(b, name + "_rhs");
    Halide::Func c(name);
    c(v) = 0.0f;
    c(v) += Halide::cast<float>(lhs(a_args)) * Halide::cast<float>(rhs(b_args));
    return c;
}

}  // namespace strata::dsl::nn
