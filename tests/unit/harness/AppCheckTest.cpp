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
