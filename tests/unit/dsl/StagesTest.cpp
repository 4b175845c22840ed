#include "strata/dsl/Stages.h"

#include <doctest/doctest.h>

using namespace Halide;

TEST_CASE("find_stage finds a Func by the name its builder gave it") {
    Func a("stages_test_a"), b("stages_test_b");
    Var x;
    a(x) = x;
    b(x) = a(x) + 1;
    CHECK(strata::dsl::find_stage(b, "stages_test_a").name() == a.name());
    CHECK(strata::dsl::find_stage(b, "stages_test_b").name() == b.name());
}

TEST_CASE("find_stage finds a Func Halide renamed to keep names unique") {
    Func first("stages_test_twice");
    Func again("stages_test_twice");  // Halide names this one "stages_test_twice$<n>"
    Func out("stages_test_out");
    Var x;
    again(x) = x;
    out(x) = again(x) * 2;
    REQUIRE(again.name() != "stages_test_twice");
    CHECK(strata::dsl::find_stage(out, "stages_test_twice").name() == again.name());
}

TEST_CASE("a missing stage is an error that lists what is there") {
    Func a("stages_test_c"), b("stages_test_d");
    Var x;
    a(x) = x;
    b(x) = a(x);
    CHECK_THROWS_WITH(strata::dsl::find_stage(b, "nope"), doctest::Contains("stages_test_c"));
}

TEST_CASE("given_name drops only Halide's uniquifying suffix") {
    Func first("stages_test_given"), again("stages_test_given");
    CHECK(strata::dsl::given_name(first) == "stages_test_given");
    CHECK(strata::dsl::given_name(again) == "stages_test_given");
    CHECK(strata::dsl::given_name(Func("stages_test_price$x")) == "stages_test_price$x");
}
