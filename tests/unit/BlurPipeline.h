// A two-stage 3×3 box blur over a repeat-edge boundary: the small pipeline
// the autoscheduler and plugin tests schedule. Header-only, Halide only, so
// that the plugin test (which links libHalide alone) can use it too.
#pragma once

#include "Halide.h"

namespace strata::testing {

// in → clamped → bx (3 taps in x) → by (3 taps in y); estimates width × height.
struct BlurPipeline {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func bx{"bx"}, by{"by"};
    Halide::Var x{"x"}, y{"y"};

    explicit BlurPipeline(int width = 1536, int height = 2560) {
        Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
        bx(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
        by(x, y) = bx(x, y - 1) + bx(x, y) + bx(x, y + 1);
        in.set_estimates({{0, width}, {0, height}});
        by.set_estimates({{0, width}, {0, height}});
    }
};

}  // namespace strata::testing
