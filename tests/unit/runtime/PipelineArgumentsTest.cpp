#include "strata/runtime/PipelineArguments.h"

#include "../FakePipeline.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

using namespace strata::runtime;
using strata::testing::fake_pipeline_argv;
using strata::testing::fake_pipeline_metadata;

namespace {
PipelineArguments fake_arguments() {
    return PipelineArguments(PipelineSignature::from_metadata(fake_pipeline_metadata()));
}
}  // namespace

TEST_CASE("the bounds query sizes inputs from the outputs") {
    strata::testing::set_fake_pipeline_faults({});
    PipelineArguments args = fake_arguments();
    args.set_output_extents("out", {10});
    args.allocate_inputs_by_bounds_query(fake_pipeline_argv);
    CHECK(args.buffer("in").dim(0).extent() == 11);
    CHECK(args.buffer("in").data() != nullptr);
}

TEST_CASE("a call runs the pipeline with the given scalars") {
    strata::testing::set_fake_pipeline_faults({});
    PipelineArguments args = fake_arguments();
    CHECK(args.scalar("scale") == 1.0);
    args.set_scalar("scale", 2.0);
    args.set_output_extents("out", {4});
    args.allocate_inputs_by_bounds_query(fake_pipeline_argv);
    args.buffer("in").as<float>().fill(1.5f);
    REQUIRE(args.call(fake_pipeline_argv) == 0);
    CHECK(args.buffer("out").as<float>()(2) == 6.0f);
}

TEST_CASE("misuse is reported with the argument's name") {
    PipelineArguments args = fake_arguments();
    CHECK_THROWS_AS(args.set_output_extents("out", {4, 4}), std::invalid_argument);
    CHECK_THROWS_AS(args.set_output_extents("in", {4}), std::invalid_argument);
    CHECK_THROWS_AS(args.set_scalar("out", 1), std::invalid_argument);
    CHECK_THROWS_AS(args.buffer("missing"), std::out_of_range);
    CHECK_THROWS_AS(args.allocate_inputs_by_bounds_query(fake_pipeline_argv), std::logic_error);
}

TEST_CASE("outputs can be sized from estimates only when every dimension has one") {
    PipelineArguments args = fake_arguments();
    CHECK_THROWS_WITH_AS(args.set_outputs_from_estimates(), doctest::Contains("dimension 0"), std::invalid_argument);
}

TEST_CASE("an input the bounds query cannot size is an error, or takes its estimates when asked") {
    using strata::testing::fake_clamped_pipeline_argv;
    using strata::testing::fake_clamped_pipeline_metadata;
    PipelineArguments strict(PipelineSignature::from_metadata(fake_clamped_pipeline_metadata()));
    strict.set_output_extents("out", {8});
    CHECK_THROWS_WITH_AS(strict.allocate_inputs_by_bounds_query(fake_clamped_pipeline_argv),
                         doctest::Contains("input 'in' no size"), std::invalid_argument);

    PipelineArguments lenient(PipelineSignature::from_metadata(fake_clamped_pipeline_metadata()));
    lenient.set_output_extents("out", {8});
    lenient.allocate_inputs_by_bounds_query(fake_clamped_pipeline_argv, /*estimates_fallback=*/true);
    CHECK(lenient.buffer("in").dim(0).extent() == 16);
    lenient.buffer("in").as<float>().fill(2.0f);
    REQUIRE(lenient.call(fake_clamped_pipeline_argv) == 0);
    CHECK(lenient.buffer("out").as<float>()(7) == 2.0f);
}

namespace {

// What Halide's bounds query answers for an input read through repeat_edge on
// its own bounds: the region the output needs, clamped to the input's shape.
int edge_clamped_pipeline_argv(void **args) {
    auto *in = static_cast<halide_buffer_t *>(args[0]);
    auto *out = static_cast<halide_buffer_t *>(args[1]);
    if (in->host == nullptr) {
        const int lo = in->dim[0].min, hi = in->dim[0].min + in->dim[0].extent - 1;
        const int first = std::clamp(out->dim[0].min, lo, std::max(lo, hi));
        const int last = std::clamp(out->dim[0].min + out->dim[0].extent - 1, lo, std::max(lo, hi));
        in->dim[0].min = first;
        in->dim[0].extent = last - first + 1;  // a zero-extent stand-in comes back 1 wide
        return 0;
    }
    return strata::testing::fake_clamped_pipeline_argv(args);
}

}  // namespace

TEST_CASE("an input read through a boundary condition is sized at its estimates, not at one element") {
    PipelineArguments args(PipelineSignature::from_metadata(strata::testing::fake_clamped_pipeline_metadata()));
    args.set_output_extents("out", {8});
    args.allocate_inputs_by_bounds_query(edge_clamped_pipeline_argv, /*estimates_fallback=*/true);
    CHECK(args.buffer("in").dim(0).extent() == 8);  // the estimate is 16; the output needs 8 of it
}
