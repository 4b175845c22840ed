// A stage that reads one input through two paths of inlinable Funcs:
// out(x) = b(x) + c(x), b(x) = a(x) + a(x + 1), a(x) = in(x) * 2,
// c(x) = in(x) + 1. Inlined, a is reached only through b, and c's read of
// the input at x is the same load as b's first tap of a.
#pragma once

#include "Halide.h"

namespace strata::testing {

struct InlineChainPipeline {
    Halide::ImageParam in{Halide::Float(32), 1, "in"};
    Halide::Func a{"a"}, b{"b"}, c{"c"}, out{"out"};
    Halide::Var x{"x"};

    InlineChainPipeline() {
        a(x) = in(x) * 2.0f;
        b(x) = a(x) + a(x + 1);
        c(x) = in(x) + 1.0f;
        out(x) = b(x) + c(x);
        in.set_estimates({{0, 65}});
        out.set_estimates({{0, 64}});
    }
};

}  // namespace strata::testing
