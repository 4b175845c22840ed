// The checker must fail wrong schedules and wrong references: these tests run
// check_variant on a fake pipeline with injected faults.
#include "strata/harness/AppCheck.h"

#include "../FakePipeline.h"

#include <doctest/doctest.h>

using namespace strata::harness;
using strata::testing::FakePipelineFaults;
using strata::testing::set_fake_pipeline_faults;

namespace {

void correct_reference(ReferenceArguments &args) {
    auto in = args.input<float>("in");
    auto out = args.output<float>("out");
    const float scale = args.scalar<float>("scale");
    for (int x = 0; x < out.dim(0).extent(); ++x) out(x) = scale * (in(x) + in(x + 1));
}

AppCheckSpec spec_with(std::function<void(ReferenceArguments &)> reference) {
    AppCheckSpec spec;
    spec.output_extents["out"] = {64};
    spec.scalars["scale"] = 0.5;
    spec.reference = std::move(reference);
    return spec;
}

const CompiledVariant kFake{"fake", strata::testing::fake_pipeline_argv, strata::testing::fake_pipeline_metadata};

}  // namespace

TEST_CASE("a correct pipeline passes") {
    set_fake_pipeline_faults({});
    CheckResult r = check_variant("fake", kFake, spec_with(correct_reference), 1);
    CHECK(r.status == CheckStatus::Passed);
    REQUIRE(r.outputs.size() == 1);
    CHECK(r.outputs[0].elements == 64);
}

TEST_CASE("a wrong schedule (biased result) fails as a mismatch") {
    set_fake_pipeline_faults(FakePipelineFaults{-1, 0.01f, 0});
    CheckResult r = check_variant("fake", kFake, spec_with(correct_reference), 1);
    CHECK(r.status == CheckStatus::Mismatch);
    set_fake_pipeline_faults({});
}

TEST_CASE("a schedule that skips an element fails as unwritten") {
    set_fake_pipeline_faults(FakePipelineFaults{17, 0.0f, 0});
    CheckResult r = check_variant("fake", kFake, spec_with(correct_reference), 1);
    CHECK(r.status == CheckStatus::Unwritten);
    CHECK(r.unwritten == 1);
    set_fake_pipeline_faults({});
}

TEST_CASE("a wrong reference (off by one neighbour) fails") {
    set_fake_pipeline_faults({});
    auto shifted_reference = [](ReferenceArguments &args) {
        auto in = args.input<float>("in");
        auto out = args.output<float>("out");
        for (int x = 0; x < out.dim(0).extent(); ++x) out(x) = 0.5f * (in(x) + in(x));
    };
    CHECK(check_variant("fake", kFake, spec_with(shifted_reference), 1).status == CheckStatus::Mismatch);
}

TEST_CASE("a pipeline error is reported as such") {
    set_fake_pipeline_faults(FakePipelineFaults{-1, 0.0f, -3});
    CheckResult r = check_variant("fake", kFake, spec_with(correct_reference), 1);
    CHECK(r.status == CheckStatus::PipelineError);
    CHECK(r.message.find("-3") != std::string::npos);
    set_fake_pipeline_faults({});
}

TEST_CASE("a variant whose generator failed has no metadata and reports it") {
    auto no_metadata = []() -> const halide_filter_metadata_t * { return nullptr; };
    CompiledVariant failed{"li2018", strata::testing::fake_pipeline_argv, no_metadata};
    CHECK(check_variant("fake", failed, spec_with(correct_reference), 1).status == CheckStatus::GeneratorFailed);
}

TEST_CASE("a spec without extents for an output is a usage error, not a result") {
    AppCheckSpec spec = spec_with(correct_reference);
    spec.output_extents.clear();
    CHECK_THROWS_WITH_AS(check_variant("fake", kFake, spec, 1), doctest::Contains("'out'"), std::invalid_argument);
}

TEST_CASE("a reference that reads an input with the wrong type is told so") {
    set_fake_pipeline_faults({});
    auto wrong_type = [](ReferenceArguments &args) { args.input<int32_t>("in"); };
    CHECK_THROWS_WITH_AS(check_variant("fake", kFake, spec_with(wrong_type), 1), doctest::Contains("float32"),
                         std::invalid_argument);
}

namespace {

// The fake pipeline, launching one kernel with this many blocks along y.
int64_t g_blocks_y = 1;
int launching_pipeline_argv(void **args) {
    const int64_t grid[3] = {4, g_blocks_y, 1};
    record_launch("_kernel_fake", grid, 128, 0);
    return strata::testing::fake_pipeline_argv(args);
}

}  // namespace

TEST_CASE("a launch with more than 65535 blocks along y is over the limits") {
    set_fake_pipeline_faults({});
    const CompiledVariant launching{"launching", launching_pipeline_argv, strata::testing::fake_pipeline_metadata};
    g_blocks_y = 65535;
    CHECK(check_variant("fake", launching, spec_with(correct_reference), 1).status == CheckStatus::Passed);
    g_blocks_y = 65536;
    const CheckResult r = check_variant("fake", launching, spec_with(correct_reference), 1);
    CHECK(r.status == CheckStatus::OverLimits);
    CHECK(r.message.find("65536 blocks along y") != std::string::npos);
    CHECK(r.launches.at("_kernel_fake").max_grid[1] == 65536);
}

TEST_CASE("a reference can read and write buffers without naming their type") {
    set_fake_pipeline_faults({});
    auto untyped = [](ReferenceArguments &args) {
        CHECK(args.input_buffer("in").type() == halide_type_of<float>());
        Halide::Runtime::Buffer<void> &out = args.output_buffer("out");
        CHECK(out.dimensions() == 1);
        correct_reference(args);
    };
    CHECK(check_variant("fake", kFake, spec_with(untyped), 1).status == CheckStatus::Passed);
    CHECK_THROWS_AS(check_variant("fake", kFake, spec_with([](ReferenceArguments &args) { args.output_buffer("x"); }), 1),
                    std::out_of_range);
}

TEST_CASE("an input the bounds query cannot size takes its estimates when the spec allows it") {
    set_fake_pipeline_faults({});
    const CompiledVariant clamped{"clamped", strata::testing::fake_clamped_pipeline_argv,
                                  strata::testing::fake_clamped_pipeline_metadata};
    AppCheckSpec spec;
    spec.output_extents["out"] = {32};
    spec.reference = [](ReferenceArguments &args) {
        auto in = args.input<float>("in");
        auto out = args.output<float>("out");
        CHECK(in.dim(0).extent() == 16);
        for (int x = 0; x < out.dim(0).extent(); ++x) out(x) = in(std::min(x, 15));
    };
    CHECK_THROWS_WITH(check_variant("fake", clamped, spec, 1), doctest::Contains("no size in dimension 0"));
    spec.unread_inputs_from_estimates = true;
    CHECK(check_variant("fake", clamped, spec, 1).status == CheckStatus::Passed);
}
