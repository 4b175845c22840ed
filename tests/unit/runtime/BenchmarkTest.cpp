#include "strata/runtime/Benchmark.h"

#include "../FakePipeline.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::runtime;
using strata::testing::fake_pipeline_argv;
using strata::testing::fake_pipeline_metadata;
using strata::testing::set_fake_pipeline_faults;

namespace {

// Counts the calls that really compute (not bounds queries).
int g_runs = 0;
int counting_pipeline(void **args) {
    if (static_cast<halide_buffer_t *>(args[0])->host) ++g_runs;
    return fake_pipeline_argv(args);
}

}  // namespace

TEST_CASE("a benchmark runs warm-ups and samples at the requested size and reports min and median") {
    set_fake_pipeline_faults({});
    g_runs = 0;
    BenchmarkOptions options;
    options.warmups = 2;
    options.samples = 5;
    options.output_extents["out"] = {1000};
    const BenchmarkResult r =
        run_benchmark(counting_pipeline, PipelineSignature::from_metadata(fake_pipeline_metadata()), options);
    CHECK(g_runs == 7);
    CHECK(r.pipeline == "fake_pipeline");
    CHECK(r.target == "host");
    CHECK(r.output_extents.at("out") == std::vector<int>{1000});
    REQUIRE(r.samples_ms.size() == 5);
    CHECK(r.times.samples == 5);
    CHECK(r.times.min_ms > 0);
    CHECK(r.times.min_ms <= r.times.median_ms);
    CHECK(r.times.min_ms == *std::min_element(r.samples_ms.begin(), r.samples_ms.end()));
}

TEST_CASE("outputs without estimates need a size, named in the error") {
    CHECK_THROWS_WITH_AS(
        run_benchmark(fake_pipeline_argv, PipelineSignature::from_metadata(fake_pipeline_metadata()), {}),
        doctest::Contains("output 'out' of pipeline 'fake_pipeline' has no estimate for dimension 0"),
        std::invalid_argument);
    BenchmarkOptions options;
    options.output_extents["in"] = {10};
    CHECK_THROWS_WITH_AS(
        run_benchmark(fake_pipeline_argv, PipelineSignature::from_metadata(fake_pipeline_metadata()), options),
        "'in' is not an output of pipeline 'fake_pipeline'", std::invalid_argument);
}

TEST_CASE("a failing pipeline is an error with its Halide error code") {
    set_fake_pipeline_faults({-1, 0.0f, -42});
    BenchmarkOptions options;
    options.output_extents["out"] = {16};
    CHECK_THROWS_WITH_AS(
        run_benchmark(fake_pipeline_argv, PipelineSignature::from_metadata(fake_pipeline_metadata()), options),
        "pipeline 'fake_pipeline' failed with Halide error -42: the fake pipeline failed on purpose",
        std::runtime_error);
    set_fake_pipeline_faults({});
}

TEST_CASE("sizes are parsed from AxBxC text") {
    CHECK(parse_extents("256x160x3", "--size") == std::vector<int>{256, 160, 3});
    CHECK(parse_extents("7", "--size") == std::vector<int>{7});
    CHECK_THROWS_WITH_AS(parse_extents("256x", "--size out"), "--size out: '256x' is not a size such as 256x160x3",
                         std::invalid_argument);
    CHECK_THROWS_AS(parse_extents("256x-1", "--size"), std::invalid_argument);
    CHECK_THROWS_AS(parse_extents("ax2", "--size"), std::invalid_argument);
    CHECK_THROWS_AS(parse_extents("", "--size"), std::invalid_argument);
}
