#include "strata/fuzz/DescriptionJson.h"
#include "strata/fuzz/RandomPipeline.h"

#include <doctest/doctest.h>

using namespace strata::fuzz;

TEST_CASE("the same seed and budget draw the same pipeline") {
    for (uint64_t seed : {0ull, 1ull, 17ull, 123456789ull}) {
        CHECK(to_json(draw_random_pipeline(seed, 12)) == to_json(draw_random_pipeline(seed, 12)));
    }
    CHECK(to_json(draw_random_pipeline(1, 12)) != to_json(draw_random_pipeline(2, 12)));
}

TEST_CASE("every drawn pipeline is valid and spends its budget") {
    for (uint64_t seed = 0; seed < 400; ++seed) {
        const int budget = int(seed % 24) + 1;
        CAPTURE(seed);
        Description d = draw_random_pipeline(seed, budget);
        CHECK_NOTHROW(infer(d));
        int computed = 0;
        for (const Stage &s : d.stages) computed += !is_input(s);
        CHECK(computed >= 1);
        CHECK(!d.outputs.empty());
    }
}
