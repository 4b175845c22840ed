#include "strata/dsl/nn/Concat.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;

namespace {

Buffer<float> tagged(const std::vector<int> &extents, float tag) {
    Buffer<float> b(extents);
    b.for_each_element(
        [&](const int *pos) { b(pos) = tag + float(pos[0] + 10 * pos[1] + 100 * pos[2] + 1000 * pos[3]); });
    return b;
}

}  // namespace

TEST_CASE("concat_channels stacks three NCHW maps in order") {
    Buffer<float> a = tagged({4, 3, 2, 2}, 0.25f), b = tagged({4, 3, 3, 2}, 0.5f), c = tagged({4, 3, 1, 2}, 0.75f);
    Buffer<float> out =
        nn::concat_channels({Func(a), Func(b), Func(c)}, {2, 3, 1}, nn::Layout::NCHW, "cat").realize({4, 3, 6, 2});
    out.for_each_element([&](int x, int y, int ch, int n) {
        const float expected = ch < 2 ? a(x, y, ch, n) : ch < 5 ? b(x, y, ch - 2, n) : c(x, y, ch - 5, n);
        CHECK(out(x, y, ch, n) == expected);
    });
}

TEST_CASE("concat_channels in NHWC, and each part is asked only for its own channels") {
    Buffer<float> a = tagged({2, 4, 3, 1}, 0.25f), b = tagged({3, 4, 3, 1}, 0.5f);
    // Realizing needs no more than each buffer's channels, or Halide reports an out-of-bounds access.
    Buffer<float> out =
        nn::concat_channels({Func(a), Func(b)}, {2, 3}, nn::Layout::NHWC, "cat_nhwc").realize({5, 4, 3, 1});
    out.for_each_element([&](int ch, int x, int y, int n) {
        CHECK(out(ch, x, y, n) == (ch < 2 ? a(ch, x, y, n) : b(ch - 2, x, y, n)));
    });
}

TEST_CASE("concat_channels refuses mismatched arguments") {
    Buffer<float> a(4, 4, 2, 1);
    CHECK_THROWS_WITH(nn::concat_channels({Func(a), Func(a)}, {2}, nn::Layout::NCHW, "c"),
                      doctest::Contains("2 parts but 1"));
    CHECK_THROWS_WITH(nn::concat_channels({}, {}, nn::Layout::NCHW, "c"), doctest::Contains("nothing"));
    CHECK_THROWS_WITH(nn::concat_channels({Func(a)}, {Expr()}, nn::Layout::NCHW, "c"), doctest::Contains("part 0"));
}
