#include "strata/costmodel/RankingMetrics.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::costmodel;

TEST_CASE("pairwise accuracy, top-k recall and median relative error of a hand-made group") {
    // One swapped pair out of six; errors 0, 0, 1/3, 1/4 → median (0 + 1/4) / 2.
    const RankingMetrics m = ranking_metrics({{{1, 2, 3, 4}, {1, 2, 4, 3}}});
    CHECK(m.pairs == 6);
    CHECK(m.pairwise_accuracy == doctest::Approx(5.0 / 6));
    CHECK(m.top1_recall == 1);
    CHECK(m.top5_recall == 1);
    CHECK(m.median_relative_error == doctest::Approx(0.125));
    CHECK(m.groups == 1);
    CHECK(m.schedules == 4);
}

TEST_CASE("top-k recall asks whether the fastest measured schedule is among the k predicted fastest") {
    // The fastest (measured 1) is predicted third fastest.
    const PredictedGroup third = {{1, 2, 3, 4, 5, 6, 7}, {3, 1, 2, 4, 5, 6, 7}};
    // The fastest is predicted slowest of seven.
    const PredictedGroup last = {{1, 2, 3, 4, 5, 6, 7}, {9, 1, 2, 3, 4, 5, 6}};
    const RankingMetrics m = ranking_metrics({third, last});
    CHECK(m.top1_recall == 0);
    CHECK(m.top5_recall == 0.5);
}

TEST_CASE("measured ties are not pairs; predicted ties count one half") {
    const RankingMetrics m = ranking_metrics({{{1, 1, 2}, {5, 5, 5}}});
    CHECK(m.pairs == 2);
    CHECK(m.pairwise_accuracy == 0.5);
}

TEST_CASE("pairs are only formed within a pipeline") {
    // Across groups the order would be wrong (group 2 is faster overall), within each it is right.
    const RankingMetrics m = ranking_metrics({{{10, 20}, {1, 2}}, {{1, 2}, {10, 20}}});
    CHECK(m.pairs == 2);
    CHECK(m.pairwise_accuracy == 1);
    CHECK(m.groups == 2);
}

TEST_CASE("groups need as many predictions as measurements") {
    CHECK_THROWS_AS(ranking_metrics({{{1, 2}, {1}}}), std::invalid_argument);
    CHECK(ranking_metrics({}).pairs == 0);
    CHECK(ranking_metrics({}).summary().find("pairwise 0.000 (0 pairs)") == 0);
}

TEST_CASE("top-1 within 10% asks how much a search trusting the model would lose") {
    // Predicted fastest measures 1.05: within 10% of the best (1.0), though not the best.
    const PredictedGroup close = {{1.0, 1.05, 3.0}, {2.0, 1.0, 3.0}};
    // Predicted fastest measures 1.5: 50% slower than the best.
    const PredictedGroup far = {{1.0, 1.5, 3.0}, {2.0, 1.0, 3.0}};
    const RankingMetrics m = ranking_metrics({close, far});
    CHECK(m.top1_recall == 0);
    CHECK(m.top1_within_10_percent == 0.5);
    CHECK(m.summary().find("top-1 0.000 (within 10%: 0.500)") != std::string::npos);
}
