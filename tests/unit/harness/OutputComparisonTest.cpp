#include "strata/harness/OutputComparison.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace strata::harness;
using Halide::Runtime::Buffer;

TEST_CASE("identical outputs pass with zero error") {
    Buffer<float> a(8, 4), e(8, 4);
    a.fill(0.5f);
    e.fill(0.5f);
    OutputComparison c = compare_output("out", a, e, Tolerance{});
    CHECK(c.passed());
    CHECK(c.elements == 32);
    CHECK(c.max_rel_error == 0);
}

TEST_CASE("one wrong element is a mismatch, reported at its coordinates") {
    Buffer<float> a(8, 4), e(8, 4);
    a.fill(1.0f);
    e.fill(1.0f);
    a(3, 2) = 1.01f;
    OutputComparison c = compare_output("out", a, e, Tolerance{1e-4, 1e-6});
    CHECK_FALSE(c.passed());
    CHECK(c.mismatches == 1);
    CHECK(c.max_rel_error == doctest::Approx(0.01).epsilon(1e-3));
    REQUIRE(c.first_mismatches.size() == 1);
    CHECK(c.first_mismatches[0].find("(3, 2)") != std::string::npos);
}

TEST_CASE("errors inside the tolerance pass") {
    Buffer<float> a(4), e(4);
    e.fill(100.0f);
    a.fill(100.005f);
    CHECK(compare_output("out", a, e, Tolerance{1e-4, 0}).passed());
    CHECK_FALSE(compare_output("out", a, e, Tolerance{1e-6, 0}).passed());
}

TEST_CASE("NaN never passes") {
    Buffer<float> a(4), e(4);
    a.fill(NAN);
    e.fill(NAN);
    CHECK_FALSE(compare_output("out", a, e, Tolerance{}).passed());
    e.fill(1.0f);
    CHECK_FALSE(compare_output("out", a, e, Tolerance{1e9, 1e9}).passed());
}

TEST_CASE("integer outputs compare exactly under a zero tolerance") {
    Buffer<uint8_t> a(16), e(16);
    a.fill(7);
    e.fill(7);
    CHECK(compare_output("out", a, e, Tolerance{0, 0}).passed());
    a(5) = 8;
    CHECK(compare_output("out", a, e, Tolerance{0, 0}).mismatches == 1);
}

TEST_CASE("buffers of different shapes are refused") {
    Buffer<float> a(4, 4), e(4, 5);
    CHECK_THROWS_AS(compare_output("out", a, e, Tolerance{}), std::invalid_argument);
}

TEST_CASE("an element left at both poisons is unwritten, whatever the type") {
    Buffer<int32_t> run_a(10), run_b(10);
    Buffer<void> a(run_a), b(run_b);
    poison(a, kPoisonA);
    poison(b, kPoisonB);
    for (int i = 0; i < 10; ++i) {
        if (i == 4) continue;  // the "schedule" skips element 4
        run_a(i) = run_b(i) = 100 + i;
    }
    CHECK(count_unwritten(a, b) == 1);
}

TEST_CASE("an element that legitimately equals one poison is still written") {
    Buffer<uint8_t> run_a(3), run_b(3);
    Buffer<void> a(run_a), b(run_b);
    poison(a, kPoisonA);
    poison(b, kPoisonB);
    run_a(0) = run_b(0) = 0xFF;  // the pipeline's true value happens to be 0xFF
    run_a(1) = run_b(1) = 0x5A;
    run_a(2) = run_b(2) = 1;
    CHECK(count_unwritten(a, b) == 0);
}
