#include "strata/runtime/PipelineSignature.h"

#include "../FakePipeline.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::runtime;

TEST_CASE("metadata becomes a signature in argv order") {
    PipelineSignature s = PipelineSignature::from_metadata(strata::testing::fake_pipeline_metadata());
    CHECK(s.name() == "fake_pipeline");
    REQUIRE(s.arguments().size() == 3);
    CHECK(s.arguments()[0].kind == ArgumentKind::InputBuffer);
    CHECK(s.arguments()[1].kind == ArgumentKind::InputScalar);
    CHECK(s.arguments()[2].is_output());
    CHECK(s.output_names() == std::vector<std::string>{"out"});
    REQUIRE(s.argument("scale").scalar_default.has_value());
    CHECK(scalar_as_double(*s.argument("scale").scalar_default, s.argument("scale").type) == 1.0);
}

TEST_CASE("asking for an unknown argument names it and the pipeline") {
    PipelineSignature s = PipelineSignature::from_metadata(strata::testing::fake_pipeline_metadata());
    try {
        s.argument("nope");
        FAIL("expected an exception");
    } catch (const std::out_of_range &e) {
        CHECK(std::string(e.what()).find("'nope'") != std::string::npos);
        CHECK(std::string(e.what()).find("fake_pipeline") != std::string::npos);
    }
}

TEST_CASE("null metadata is refused") {
    CHECK_THROWS_AS(PipelineSignature::from_metadata(nullptr), std::invalid_argument);
}

TEST_CASE("scalars round-trip through every type") {
    for (halide_type_t t : {halide_type_t(halide_type_float, 32), halide_type_t(halide_type_float, 64),
                            halide_type_t(halide_type_int, 8), halide_type_t(halide_type_int, 32),
                            halide_type_t(halide_type_uint, 16), halide_type_t(halide_type_uint, 64)}) {
        CHECK(scalar_as_double(scalar_from_double(42, t), t) == 42);
    }
}
