// The plugin as users load it in-process: Halide::load_plugin(), then
// Pipeline::auto_schedule("Strata", ...). This executable links only
// libHalide, like a user's program.
#include "Halide.h"

#include <doctest/doctest.h>

using namespace Halide;

TEST_CASE("loading the plugin registers Strata, which schedules a pipeline in-process") {
    load_plugin(STRATA_PLUGIN_PATH);
    ImageParam in(Float(32), 2, "in");
    Func blur("blur"), out("out");
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    blur(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
    out(x, y) = blur(x, y - 1) + blur(x, y) + blur(x, y + 1);
    in.set_estimates({{0, 1024}, {0, 1024}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    Pipeline p(out);
    const Target target("host-cuda-cuda_capability_80");
    AutoSchedulerResults results = p.auto_schedule("Strata", target);
    CHECK(results.scheduler_name == "Strata");
    CHECK(results.schedule_source.find("gpu_blocks") != std::string::npos);
    CHECK_FALSE(results.featurization.empty());
    // The schedule is applied: the pipeline lowers for the GPU.
    CHECK_NOTHROW(p.compile_to_module({in}, "scheduled", target));
}

TEST_CASE("StrataPredict is registered too and needs its environment") {
    load_plugin(STRATA_PLUGIN_PATH);
    ImageParam in(Float(32), 1, "in");
    Func f("f");
    Var x("x");
    f(x) = in(x) * 2;
    in.set_estimates({{0, 64}});
    f.set_estimates({{0, 64}});
    Pipeline p(f);
    CHECK_THROWS_WITH(p.auto_schedule("StrataPredict", Target("host-cuda")), doctest::Contains("STRATA_PREDICT_AFTER"));
}
