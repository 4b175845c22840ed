#include "strata/dsl/nn/Matmul.h"

#include "TestData.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::random_buffer;

TEST_CASE("matmul is the row-by-column product in (column, row) order") {
    Buffer<float> a = random_buffer({5, 3}, -1.0f, 1.0f, 1), b = random_buffer({4, 5}, -1.0f, 1.0f, 2);  // 3×5 · 5×4
    Buffer<float> c = nn::matmul(Func(a), Func(b), 5, "c").realize({4, 3});
    c.for_each_element([&](int n, int m) {
        double sum = 0;
        for (int k = 0; k < 5; ++k) sum += double(a(k, m)) * b(n, k);
        CHECK(c(n, m) == doctest::Approx(sum).epsilon(1e-5));
    });
}

TEST_CASE("batched_matmul multiplies matching matrices of 4-D stacks") {
    Buffer<float> a = random_buffer({6, 3, 2, 2}, -1.0f, 1.0f, 3), b = random_buffer({5, 6, 2, 2}, -1.0f, 1.0f, 4);
    Buffer<float> c = nn::batched_matmul(Func(a), Func(b), 6, "c").realize({5, 3, 2, 2});
    c.for_each_element([&](int n, int m, int h, int batch) {
        double sum = 0;
        for (int k = 0; k < 6; ++k) sum += double(a(k, m, h, batch)) * b(n, k, h, batch);
        CHECK(c(n, m, h, batch) == doctest::Approx(sum).epsilon(1e-5));
    });
}

TEST_CASE("batched_matmul with Transpose::B computes a · bᵀ (attention's Q·Kᵀ)") {
    // (d, seq, heads)
    Buffer<float> q = random_buffer({8, 4, 3}, -1.0f, 1.0f, 5), k = random_buffer({8, 7, 3}, -1.0f, 1.0f, 6);
    Buffer<float> s = nn::batched_matmul(Func(q), Func(k), 8, "s", nn::Transpose::B).realize({7, 4, 3});
    s.for_each_element([&](int j, int i, int h) {
        double sum = 0;
        for (int d = 0; d < 8; ++d) sum += double(q(d, i, h)) * k(d, j, h);
        CHECK(s(j, i, h) == doctest::Approx(sum).epsilon(1e-5));
    });
}

TEST_CASE("batched_matmul names its reduction and refuses mismatched stacks") {
    Buffer<float> a(4, 4, 2), b(4, 4), c(4, 4, 2);
    Func p = nn::batched_matmul(Func(a), Func(c), 4, "prod");
    REQUIRE(p.rvars().size() == 1);
    CHECK(p.rvars()[0].name().rfind("prod_k", 0) == 0);
    CHECK_THROWS_WITH(nn::batched_matmul(Func(a), Func(b), 4, "p"), doctest::Contains("batch dimensions must match"));
    CHECK_THROWS_WITH(nn::batched_matmul(Func(a), Func(c), Expr(), "p"), doctest::Contains("reduction extent"));
}
