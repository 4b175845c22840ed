#include "strata/dsl/nn/Residual.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;

TEST_CASE("residual_add sums two tensors elementwise") {
    Buffer<float> a(4, 3, 2, 1), b(4, 3, 2, 1);
    a.for_each_element([&](int x, int y, int c, int n) { a(x, y, c, n) = float(x + 10 * y + 100 * c + n); });
    b.for_each_element([&](int x, int y, int c, int) { b(x, y, c, 0) = float(x * y - c) * 0.5f; });
    Buffer<float> out = nn::residual_add(Func(a), Func(b), "r").realize({4, 3, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) { CHECK(out(x, y, c, n) == a(x, y, c, n) + b(x, y, c, n)); });
}

TEST_CASE("residual_add refuses tensors of different ranks, naming both") {
    Buffer<float> a(4, 3, 2, 1), b(4, 3);
    Func fa(a), fb(b);
    CHECK_THROWS_WITH(nn::residual_add(fa, fb, "r"), doctest::Contains("has 2"));
}
