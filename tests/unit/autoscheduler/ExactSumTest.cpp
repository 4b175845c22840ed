// An exact sum of prices does not depend on the order of its terms, so a
// total with terms swapped out and in equals the same terms summed anew;
// an unbounded term makes it infinite until it is taken out.
#include "ExactSum.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using strata::autoscheduler::ExactSum;

namespace {

double sum_of(const std::vector<double> &terms) {
    ExactSum sum;
    for (double t : terms) sum += t;
    return sum.seconds();
}

}  // namespace

TEST_CASE("the sum does not depend on the order of its terms, where a double's does") {
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> exponent(-27, 2);
    std::vector<double> terms;
    for (int i = 0; i < 500; ++i) terms.push_back(std::exp2(exponent(random)));
    const double exact = sum_of(terms);
    bool double_sum_moved = false;
    for (int shuffle = 0; shuffle < 20; ++shuffle) {
        std::shuffle(terms.begin(), terms.end(), random);
        CHECK(sum_of(terms) == exact);
        double plain = 0;
        for (double t : terms) plain += t;
        double_sum_moved |= plain != exact;
        CHECK(plain == doctest::Approx(exact).epsilon(1e-12));
    }
    CHECK(double_sum_moved);  // what the exact sum is for
}

TEST_CASE("terms swapped out and in give the sum of the new terms, bit for bit") {
    const std::vector<double> before = {1e-5, 3.25e-4, 7e-6, 2.5e-3, 1.1e-5};
    std::vector<double> after = before;
    after[1] = 4.75e-4;
    after[3] = 1e-6;
    ExactSum total;
    for (double t : before) total += t;
    total -= before[1];
    total += after[1];
    total -= before[3];
    total += after[3];
    CHECK(total.seconds() == sum_of(after));
    ExactSum empty;
    CHECK(empty.seconds() == 0.0);
}

TEST_CASE("an infinite or huge term makes the sum infinite until it is taken out") {
    const double inf = std::numeric_limits<double>::infinity();
    ExactSum total;
    total += 2e-3;
    total += inf;
    CHECK(total.seconds() == inf);
    total -= inf;
    CHECK(total.seconds() == 2e-3);
    total += 1e9;  // past the 2^26 s a term may hold
    CHECK(total.seconds() == inf);
}
