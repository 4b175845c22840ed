#include "strata/runtime/PipelineRegistry.h"

#include "../FakePipeline.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::runtime;

namespace {

// What a `-e registration` file does, for the stand-in pipeline.
struct Registerer {
    Registerer() {
        halide_register_argv_and_metadata(strata::testing::fake_pipeline_argv,
                                          strata::testing::fake_pipeline_metadata(), nullptr);
        // The stub of a failed generator run (null metadata) is not registered.
        halide_register_argv_and_metadata(strata::testing::fake_pipeline_argv, nullptr, nullptr);
    }
} registerer;

}  // namespace

TEST_CASE("pipelines registered at static initialization are found by name") {
    REQUIRE(registered_pipelines().size() == 1);
    CHECK((find_registered_pipeline("fake_pipeline").argv == &strata::testing::fake_pipeline_argv));
    CHECK(find_registered_pipeline("").metadata == strata::testing::fake_pipeline_metadata());
    CHECK_THROWS_WITH_AS(find_registered_pipeline("blur"),
                         "no pipeline named 'blur' is registered; registered pipelines: fake_pipeline",
                         std::invalid_argument);
}
