// An update that adds nothing once its producers are inlined (fuzz seed
// 3225): acc(x) += w(x) * zero(x), zero(x) = g(x) - g(x). Inlined, the
// update is acc(x) = acc(x), a store of what it loads, which Halide drops
// with its kernel; with zero computed elsewhere it reads zero's buffer.
#pragma once

#include "Halide.h"

namespace strata::testing {

struct ZeroedUpdatePipeline {
    Halide::ImageParam in{Halide::Float(32), 1, "in"}, w{Halide::Float(32), 1, "w"};
    Halide::Func g{"g"}, zero{"zero"}, acc{"acc"};
    Halide::Var x{"x"};

    explicit ZeroedUpdatePipeline(int size = 64) {
        g(x) = in(x) * 3.0f;
        zero(x) = g(x) - g(x);
        acc(x) = in(x);
        acc(x) += w(x) * zero(x);
        in.set_estimates({{0, size}});
        w.set_estimates({{0, size}});
        acc.set_estimates({{0, size}});
    }
};

}  // namespace strata::testing
