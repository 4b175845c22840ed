#include "strata/fuzz/Minimizer.h"
#include "strata/fuzz/RandomPipeline.h"

#include <doctest/doctest.h>

using namespace strata::fuzz;

namespace {

bool has_op(const Description &d, const char *name) {
    for (const Stage &s : d.stages) {
        if (std::string(op_name(s.op)) == name) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("every candidate is a valid description") {
    for (uint64_t seed = 0; seed < 20; ++seed) {
        CAPTURE(seed);
        for (const Candidate &c : smaller_candidates(draw_random_pipeline(seed, 10))) {
            Description d = c.description;
            CHECK_NOTHROW(infer(d));
        }
    }
}

TEST_CASE("minimizing keeps the failure and removes the rest") {
    // Find a drawing with a stencil among other stages; "fails" = has a stencil.
    for (uint64_t seed = 0; seed < 200; ++seed) {
        const Description d = draw_random_pipeline(seed, 14);
        if (!has_op(d, "stencil") || d.stages.size() < 8) continue;
        CAPTURE(seed);
        std::vector<std::string> log;
        const MinimizeResult r = minimize(
            d, [](const Description &c) { return has_op(c, "stencil"); }, {},
            [&](const std::string &line) { log.push_back(line); });
        CHECK(has_op(r.description, "stencil"));
        CHECK(r.description.stages.size() == 2);  // an input and the stencil
        CHECK(r.stages_before == int(d.stages.size()));
        CHECK(!log.empty());
        return;
    }
    FAIL("no drawing with a stencil");
}

TEST_CASE("the test budget bounds the work") {
    const Description d = draw_random_pipeline(3, 14);
    int calls = 0;
    const MinimizeResult r = minimize(
        d, [&](const Description &) { return ++calls, false; }, MinimizeOptions{5}, [](const std::string &) {});
    CHECK(calls <= 5);
    CHECK(r.tests == calls);
}
