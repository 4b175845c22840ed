// A stencil pipeline for the schedule-source tests (see CMakeLists.txt):
// two separable passes over a clamped image, a Func inlined or staged by
// the search, and a pointwise output.
#include "Halide.h"
#include "strata/dsl/Estimates.h"

namespace {

using namespace Halide;

class ReplayBlur : public Generator<ReplayBlur> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = (clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y)) / 4;
        blur_y(x, y) = (blur_x(x, y - 1) + 2 * blur_x(x, y) + blur_x(x, y + 1)) / 4;
        output(x, y) = sqrt(blur_y(x, y)) + input(x, y);
        strata::dsl::estimate_extents(input, {1536, 2560});
        strata::dsl::estimate_extents(output, {1536, 2560});
    }

    void schedule() {
#ifdef STRATA_REPLAY_FUNCTION
        if (!using_autoscheduler()) STRATA_REPLAY_FUNCTION(get_pipeline(), get_target());
#endif
    }

private:
    Var x{"x"}, y{"y"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ReplayBlur, replay_blur)
