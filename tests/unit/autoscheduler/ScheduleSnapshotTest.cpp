#include "ScheduleSnapshot.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;

namespace {
// LoopLevels can be inspected only once locked.
Halide::LoopLevel locked(Halide::LoopLevel level) {
    level.lock();
    return level;
}
}  // namespace

TEST_CASE("restoring a snapshot undoes compute levels, splits and GPU loops") {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func f("snap_f"), g("snap_g");
    Halide::Var x("x"), y("y"), xo("xo"), xi("xi");
    Halide::RDom r(0, 8, "r");
    f(x, y) = in(x, y) * 2;
    g(x, y) = 0.0f;
    g(x, y) += f(x + r, y);
    in.set_estimates({{0, 64}, {0, 64}});
    g.set_estimates({{0, 32}, {0, 32}});
    FunctionDAG dag({g});
    const size_t pure_dims = g.function().definition().schedule().dims().size();
    const size_t update_dims = g.function().update(0).schedule().dims().size();

    ScheduleSnapshot snapshot(dag);
    f.compute_root().gpu_tile(x, y, xo, Halide::Var("yo"), xi, Halide::Var("yi"), 16, 16);
    g.update().split(x, xo, xi, 8).gpu_blocks(xo).gpu_threads(xi);
    CHECK(locked(f.function().schedule().compute_level()).is_root());
    CHECK(g.function().update(0).schedule().dims().size() > update_dims);

    snapshot.restore();
    CHECK(locked(f.function().schedule().compute_level()).is_inlined());
    CHECK(f.function().definition().schedule().dims().size() == 3);  // x, y, outermost
    CHECK(g.function().definition().schedule().dims().size() == pure_dims);
    CHECK(g.function().update(0).schedule().dims().size() == update_dims);
    for (const auto &d : g.function().update(0).schedule().dims()) {
        CHECK(d.for_type == Halide::Internal::ForType::Serial);
    }
}
