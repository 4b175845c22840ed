#include "strata/dsl/nn/Window.h"

#include <doctest/doctest.h>

namespace nn = strata::dsl::nn;

TEST_CASE("output_extent follows PyTorch's formula") {
    CHECK(nn::output_extent(56, {3, 1, 1, 1}) == 56);
    CHECK(nn::output_extent(224, {7, 2, 3, 1}) == 112);
    CHECK(nn::output_extent(112, {2, 2, 0, 1}) == 56);
    CHECK(nn::output_extent(11, {3, 2, 2, 2}) == 6);
    CHECK(nn::output_extent(10, {3, 1, 0, 1}) == 8);
    Halide::Expr e = Halide::Internal::simplify(nn::output_extent(Halide::Expr(224), {7, 2, 3, 1}));
    CHECK(Halide::Internal::as_const_int(e).has_value());
    CHECK(*Halide::Internal::as_const_int(e) == 112);
}

TEST_CASE("input_coordinate walks the dilated, strided, padded window") {
    Halide::Expr c = Halide::Internal::simplify(nn::input_coordinate(5, 2, {3, 2, 1, 3}));
    REQUIRE(Halide::Internal::as_const_int(c).has_value());
    CHECK(*Halide::Internal::as_const_int(c) == 5 * 2 + 2 * 3 - 1);
}

TEST_CASE("require_valid refuses malformed windows with the operator's name") {
    CHECK_NOTHROW(nn::require_valid({3, 1, 1, 1}, "op"));
    CHECK_THROWS_WITH(nn::require_valid({0, 1, 0, 1}, "pool 'p'"), doctest::Contains("pool 'p'"));
    CHECK_THROWS_WITH(nn::require_valid({3, 1, -1, 1}, "op"), doctest::Contains("padding"));
    CHECK_THROWS_WITH(nn::require_valid({3, 1, 1, 0}, "op"), doctest::Contains("dilation"));
    CHECK_THROWS_WITH(nn::require_valid({3, 1, 3, 1}, "op"), doctest::Contains("smaller than the dilated kernel"));
}
