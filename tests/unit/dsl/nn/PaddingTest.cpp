#include "strata/dsl/nn/Padding.h"

#include <doctest/doctest.h>

using namespace Halide;
namespace nn = strata::dsl::nn;

TEST_CASE("pad_spatial keeps the inside and fills the outside, in either layout") {
    Buffer<float> nchw(4, 3, 2, 1);
    nchw.for_each_element([&](int x, int y, int c, int n) { nchw(x, y, c, n) = float(1 + x + 10 * y + 100 * c + n); });
    Func padded = nn::pad_spatial(Func(nchw), nn::Layout::NCHW, 4, 3, -7.0f, "p");
    Buffer<float> out(6, 5, 2, 1);
    out.set_min(std::vector<int>{-1, -1, 0, 0});
    padded.realize(out);
    out.for_each_element([&](int x, int y, int c, int n) {
        const bool inside = x >= 0 && x < 4 && y >= 0 && y < 3;
        CHECK(out(x, y, c, n) == (inside ? nchw(x, y, c, n) : -7.0f));
    });

    Buffer<float> nhwc(2, 4, 3, 1);
    nhwc.for_each_element([&](int c, int x, int y, int) { nhwc(c, x, y, 0) = float(1 + x + 10 * y + 100 * c); });
    Func padded_nhwc = nn::pad_spatial(Func(nhwc), nn::Layout::NHWC, 4, 3, 0.0f, "q");
    Buffer<float> out2(2, 6, 5, 1);
    out2.set_min(std::vector<int>{0, -1, -1, 0});
    padded_nhwc.realize(out2);
    out2.for_each_element([&](int c, int x, int y, int n) {
        const bool inside = x >= 0 && x < 4 && y >= 0 && y < 3;
        CHECK(out2(c, x, y, n) == (inside ? nhwc(c, x, y, n) : 0.0f));
    });
}

TEST_CASE("pad_for_window pads only when the window has padding") {
    Buffer<float> in(4, 4, 1, 1);
    Func source(in);
    CHECK(nn::pad_for_window(source, {}, {2, 2, 0, 1}, nn::Layout::NCHW, 0.0f, "pool").name() == source.name());
    // Halide makes repeated Func names unique with a "$n" suffix.
    CHECK(nn::pad_for_window(source, {4, 4, 1}, {3, 1, 1, 1}, nn::Layout::NCHW, 0.0f, "conv").name().rfind(
              "conv_padded", 0) == 0);
    CHECK_THROWS_WITH(nn::pad_for_window(source, {}, {3, 1, 1, 1}, nn::Layout::NCHW, 0.0f, "conv"),
                      doctest::Contains("width and height"));
}
