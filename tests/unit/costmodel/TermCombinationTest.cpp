#include "strata/costmodel/TermCombination.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::costmodel;

namespace {
TermVector make_terms(double compute, double dram, double launch) {
    TermVector t{};
    t[index(Term::Compute)] = compute;
    t[index(Term::Dram)] = dram;
    t[index(Term::Launch)] = launch;
    return t;
}
}  // namespace

TEST_CASE("stages in one kernel overlap on their busiest resource; kernels add up") {
    // Kernel 0: compute 3 + 1 = 4, DRAM 2 + 5 = 7 → 7, plus launch 1.
    // Kernel 1: compute 2, DRAM 1 → 2, plus launch 1.
    std::vector<StageTerms> stages = {{0, make_terms(3, 2, 1)}, {0, make_terms(1, 5, 0)}, {1, make_terms(2, 1, 1)}};
    std::vector<TermVector> ones(3, unit_coefficients());
    CHECK(pipeline_seconds(stages, ones, nullptr) == doctest::Approx(7 + 1 + 2 + 1));
}

TEST_CASE("coefficients scale their terms and can change the busiest resource") {
    std::vector<StageTerms> stages = {{0, make_terms(3, 2, 0)}};
    std::vector<TermVector> c(1, unit_coefficients());
    c[0][index(Term::Dram)] = 2.0;  // DRAM 4 now beats compute 3
    CHECK(pipeline_seconds(stages, c, nullptr) == doctest::Approx(4));
}

TEST_CASE("the gradient is the term of the busiest resource and of every additive term") {
    std::vector<StageTerms> stages = {{0, make_terms(3, 2, 0.5)}, {0, make_terms(1, 5, 0)}};
    std::vector<TermVector> ones(2, unit_coefficients());
    std::vector<TermVector> gradient;
    pipeline_seconds(stages, ones, &gradient);
    REQUIRE(gradient.size() == 2);
    CHECK(gradient[0][index(Term::Dram)] == 2);
    CHECK(gradient[1][index(Term::Dram)] == 5);
    CHECK(gradient[0][index(Term::Compute)] == 0);
    CHECK(gradient[0][index(Term::Launch)] == 0.5);

    // Finite differences agree.
    const double h = 1e-6;
    std::vector<TermVector> bumped = ones;
    bumped[1][index(Term::Dram)] += h;
    const double slope = (pipeline_seconds(stages, bumped, nullptr) - pipeline_seconds(stages, ones, nullptr)) / h;
    CHECK(slope == doctest::Approx(5).epsilon(1e-4));
}

TEST_CASE("a coefficient per stage is required") {
    std::vector<StageTerms> stages = {{0, make_terms(1, 1, 1)}};
    CHECK_THROWS_AS(pipeline_seconds(stages, {}, nullptr), std::invalid_argument);
}
