// A square matrix product whose operands are read through pure Funcs (lhs,
// rhs), so that a K-tiled schedule can stage them in shared memory: the
// pipeline the chunked-reduction and model hand-case tests schedule.
// Header-only, Halide only.
#pragma once

#include "Halide.h"

namespace strata::testing {

// out(x, y) = product(x, y) = Σ_k lhs(k, y) · rhs(x, k), lhs = a, rhs = b;
// every extent `size`.
struct StagedMatMul {
    Halide::ImageParam a{Halide::Float(32), 2, "a"}, b{Halide::Float(32), 2, "b"};
    Halide::Func lhs{"lhs"}, rhs{"rhs"}, product{"product"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};

    explicit StagedMatMul(int size) {
        Halide::RDom k(0, size, "k");
        lhs(x, y) = a(x, y);
        rhs(x, y) = b(x, y);
        product(x, y) = 0.0f;
        product(x, y) += lhs(k, y) * rhs(x, k);
        out(x, y) = product(x, y);
        a.set_estimates({{0, size}, {0, size}});
        b.set_estimates({{0, size}, {0, size}});
        out.set_estimates({{0, size}, {0, size}});
    }
};

}  // namespace strata::testing
