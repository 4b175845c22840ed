// An app check executable whose variants are wrong (or crash) unless PoCL's
// optimizer is off (HL_OCL_BUILD_OPTIONS=-cl-opt-disable), or wrong (or
// crash) either way: app_check_main must run a mismatch or a crash again
// unoptimized, report the first kind as "passed-unoptimized" (a status of
// its own, not a plain pass) and fail the second.
#include "FakePipeline.h"
#include "strata/harness/AppCheck.h"

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace {

bool optimizer_off() {
    const char *options = std::getenv("HL_OCL_BUILD_OPTIONS");
    return options && std::strcmp(options, "-cl-opt-disable") == 0;
}

int wrong_when_optimized_argv(void **args) {
    strata::testing::set_fake_pipeline_faults({-1, optimizer_off() ? 0.0f : 0.01f, 0});
    return strata::testing::fake_pipeline_argv(args);
}

int always_wrong_argv(void **args) {
    strata::testing::set_fake_pipeline_faults({-1, 0.01f, 0});
    return strata::testing::fake_pipeline_argv(args);
}

int crashes_when_optimized_argv(void **args) {
    if (!optimizer_off()) std::raise(SIGSEGV);
    return strata::testing::fake_pipeline_argv(args);
}

int always_crashes_argv(void **) {
    std::raise(SIGSEGV);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const std::vector<strata::harness::CompiledVariant> variants = {
        {"wrong_when_optimized", wrong_when_optimized_argv, strata::testing::fake_pipeline_metadata, nullptr},
        {"always_wrong", always_wrong_argv, strata::testing::fake_pipeline_metadata, nullptr},
        {"crashes_when_optimized", crashes_when_optimized_argv, strata::testing::fake_pipeline_metadata, nullptr},
        {"always_crashes", always_crashes_argv, strata::testing::fake_pipeline_metadata, nullptr}};
    return strata::harness::app_check_main(argc, argv, "optimizer", variants, [] {
        strata::harness::AppCheckSpec spec;
        spec.output_extents["out"] = {64};
        spec.scalars["scale"] = 0.5;
        spec.reference = [](strata::harness::ReferenceArguments &args) {
            auto in = args.input<float>("in");
            auto out = args.output<float>("out");
            const float scale = args.scalar<float>("scale");
            for (int x = 0; x < out.dim(0).extent(); ++x) out(x) = scale * (in(x) + in(x + 1));
        };
        return spec;
    });
}
