#include "strata/dsl/nn/Matmul.h"

#include "strata/dsl/FuncShape.h"

namespace strata::dsl::nn {

Halide::Func matmul(const Halide::Func &a, const Halide::Func &b, const Halide::Expr &k_extent,
                    const std::string &name) {
    require_dimensions(a, 2, "matmul");
    require_dimensions(b, 2, "matmul");
    Halide::Var n(name + "_n"), m(name + "_m");
    Halide::RDom k(0, k_extent, name + "_k");
    Halide::Func c(name);
    c(n, m) = Halide::cast(a.output_types()[0], 0);
    c(n, m) += a(k, m) * b(n, k);
    return c;
}

}  // namespace strata::dsl::nn
