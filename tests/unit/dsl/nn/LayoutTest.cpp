#include "strata/dsl/nn/Layout.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;

TEST_CASE("layouts name their dimensions innermost first") {
    CHECK(nn::width_dim(nn::Layout::NCHW) == 0);
    CHECK(nn::height_dim(nn::Layout::NCHW) == 1);
    CHECK(nn::channel_dim(nn::Layout::NCHW) == 2);
    CHECK(nn::channel_dim(nn::Layout::NHWC) == 0);
    CHECK(nn::width_dim(nn::Layout::NHWC) == 1);
    CHECK(nn::height_dim(nn::Layout::NHWC) == 2);
    CHECK(std::string(nn::to_string(nn::Layout::NHWC)) == "NHWC");
}

TEST_CASE("layout_args and layout_vars place (x, y, c, n) in the layout's order") {
    Buffer<float> nhwc(2, 3, 4, 1);
    nhwc.for_each_element([&](int c, int x, int y, int n) { nhwc(c, x, y, n) = float(c + 10 * x + 100 * y + n); });
    Var x, y, c, n;
    Func as_nchw("as_nchw");
    as_nchw(x, y, c, n) = Func(nhwc)(nn::layout_args(nn::Layout::NHWC, x, y, c, n));
    Buffer<float> out = as_nchw.realize({3, 4, 2, 1});
    out.for_each_element([&](int x, int y, int c, int n) { CHECK(out(x, y, c, n) == nhwc(c, x, y, n)); });

    std::vector<Var> v = nn::layout_vars(nn::Layout::NHWC, "t");
    CHECK(v[0].name() == "t_c");
    CHECK(v[1].name() == "t_x");
}

TEST_CASE("require_feature_map names the Func that is not 4-D") {
    Buffer<float> m(3, 3);
    Func f(m);
    CHECK_THROWS_WITH(nn::require_feature_map(f, "op"), doctest::Contains(f.name().c_str()));
}
