// The plugin as users load it in-process: Halide::load_plugin(), then
// Pipeline::apply_autoscheduler(target, {"Strata", {key: value}}). This
// executable links only libHalide, like a user's program.
#include "BlurPipeline.h"
#include "Halide.h"

#include <doctest/doctest.h>

using namespace Halide;

using Blur3x3 = strata::testing::BlurPipeline;

TEST_CASE("loading the plugin registers Strata, which schedules a pipeline in-process") {
    load_plugin(STRATA_PLUGIN_PATH);
    Blur3x3 b;
    Pipeline p(b.by);
    const Target target("host-cuda-cuda_capability_80");
    AutoSchedulerResults results = p.apply_autoscheduler(target, {"Strata", {{"beam_size", "8"}}});
    CHECK(results.autoscheduler_params.name == "Strata");
    CHECK(results.schedule_source.find("gpu_blocks") != std::string::npos);
    // The generator key reached the search (the schedule's header names it).
    CHECK(results.schedule_source.find("beam 8") != std::string::npos);
    CHECK_FALSE(results.featurization.empty());
    // The schedule is applied: the pipeline lowers for the GPU.
    CHECK_NOTHROW(p.compile_to_module({b.in}, "scheduled", target));
}

TEST_CASE("an unknown key is an error that lists the valid ones") {
    load_plugin(STRATA_PLUGIN_PATH);
    Blur3x3 b;
    Pipeline p(b.by);
    CHECK_THROWS_WITH(p.apply_autoscheduler(Target("host-cuda"), {"Strata", {{"beamsize", "8"}}}),
                      doctest::Contains("autoscheduler.beamsize is not a Strata parameter (valid keys: config, beam_size"));
}

TEST_CASE("StrataPredict is registered too and names the keys it needs") {
    load_plugin(STRATA_PLUGIN_PATH);
    ImageParam in(Float(32), 1, "in");
    Func f("f");
    Var x("x");
    f(x) = in(x) * 2;
    in.set_estimates({{0, 64}});
    f.set_estimates({{0, 64}});
    Pipeline p(f);
    CHECK_THROWS_WITH(p.apply_autoscheduler(Target("host-cuda"), {"StrataPredict", {}}),
                      doctest::Contains("StrataPredict needs autoscheduler.inner"));
}
