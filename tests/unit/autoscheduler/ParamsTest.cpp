#include "Params.h"

#include <doctest/doctest.h>

#include <cstdlib>

using strata::autoscheduler::Params;

TEST_CASE("defaults are documented values") {
    Params p;
    CHECK(p.beam_size == 32);
    CHECK(p.passes == 2);
    CHECK(p.two_phase);
    CHECK(p.memoize);
    CHECK(p.parallel_reductions);
}

TEST_CASE("JSON keys set fields; unknown keys and bad values are errors naming them") {
    Params p;
    p.apply_json(R"({"beam_size": 8, "seed": 5, "gpu": "h100", "two_phase": false})", "test.json");
    CHECK(p.beam_size == 8);
    CHECK(p.seed == 5);
    CHECK(p.gpu == "h100");
    CHECK_FALSE(p.two_phase);
    CHECK_THROWS_WITH(p.apply_json(R"({"beam": 8})", "test.json"), doctest::Contains("unknown key \"beam\""));
    CHECK_THROWS_WITH(p.apply_json(R"({"beam_size": "wide"})", "test.json"),
                      doctest::Contains("\"beam_size\" must be an integer"));
    CHECK_THROWS_WITH(p.apply_json(R"({"passes": 0})", "test.json"), doctest::Contains("must be in [1, 8]"));
    CHECK_THROWS_WITH(p.apply_json("[1, 2]", "test.json"), doctest::Contains("not a JSON object"));
}

TEST_CASE("environment variables override") {
    setenv("STRATA_BEAM_SIZE", "3", 1);
    setenv("STRATA_GPU", "v100", 1);
    Params p = Params::from_environment();
    CHECK(p.beam_size == 3);
    CHECK(p.gpu == "v100");
    setenv("STRATA_BEAM_SIZE", "lots", 1);
    CHECK_THROWS_WITH(Params::from_environment(), doctest::Contains("STRATA_BEAM_SIZE"));
    unsetenv("STRATA_BEAM_SIZE");
    unsetenv("STRATA_GPU");
}
