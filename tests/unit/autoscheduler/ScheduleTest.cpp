// Schedule::can_place: where a Func may be computed inside another's
// kernel. Each refusal stands for a schedule Halide would not take; the
// case here lowers the refused schedule to show that it still would not.
#include "LoweringProbe.h"
#include "Schedule.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::testing::id_of;

namespace {

const strata::costmodel::GpuSpec &a100() { return strata::costmodel::GpuSpec::by_name("a100"); }

// in → blur_x → blur_y → out, 3-tap stencils over a 2-D image.
struct TwoStageBlur {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func blur_x{"blur_x"}, blur_y{"blur_y"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    TwoStageBlur() {
        blur_x(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
        blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
        out(x, y) = blur_y(x, y) * 2.0f;
        in.set_estimates({{-1, 2050}, {-1, 2050}});
        out.set_estimates({{0, 2048}, {0, 2048}});
    }
};

}  // namespace

TEST_CASE("a per-block buffer is not placed under another: Halide cannot prove its storage bound in the kernel") {
    TwoStageBlur p;
    FunctionDAG dag({p.out});
    const int out = id_of(dag, "out"), blur_y = id_of(dag, "blur_y"), blur_x = id_of(dag, "blur_x");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({2048, 2048}, {32, 8}, {1, 1});
    s.set(out, FuncChoice::root({tiled}));
    s.set(blur_y, FuncChoice::at(Placement::Block, out, 0));
    CHECK_FALSE(s.can_place(blur_x, Placement::Block, out, 0));
    CHECK_FALSE(s.can_place(blur_x, Placement::Thread, out, 0));
    CHECK(s.can_place(blur_x, Placement::Root));
    CHECK(s.can_place(blur_x, Placement::Inline));

    // Placed there anyway, the writer's bounds are right and Halide still
    // leaves their check inside the kernel.
    s.set(blur_x, FuncChoice::at(Placement::Block, out, 0));
    complete_with_defaults(s, a100());
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    REQUIRE(error.has_value());
    CHECK(funcs_named_in(*error, {p.blur_x.name(), p.blur_y.name(), p.out.name()}) ==
          std::set<std::string>{p.blur_x.name()});
}
