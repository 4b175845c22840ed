#include "strata/dsl/image/Color.h"

#include "TestData.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_buffer;

TEST_CASE("luminance weighs the channels by Rec. 601") {
    Buffer<float> in = random_buffer({4, 3, 3}, 0.0f, 1.0f, 1);
    Buffer<float> out = image::luminance(Func(in), "gray").realize({4, 3});
    out.for_each_element([&](int x, int y) {
        CHECK(out(x, y) == doctest::Approx(0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2)));
    });
}

TEST_CASE("rgb_to_ycbcr: grays have no chroma, primaries land on the JFIF values") {
    Buffer<float> in(3, 1, 3);
    const float colors[3][3] = {{0.5f, 0.5f, 0.5f}, {1, 0, 0}, {0, 0, 1}};
    for (int x = 0; x < 3; ++x)
        for (int c = 0; c < 3; ++c) in(x, 0, c) = colors[x][c];
    Buffer<float> out = image::rgb_to_ycbcr(Func(in), "ycc").realize({3, 1, 3});
    CHECK(out(0, 0, 0) == doctest::Approx(0.5f));
    CHECK(out(0, 0, 1) == doctest::Approx(0.0f).epsilon(1e-6));
    CHECK(out(0, 0, 2) == doctest::Approx(0.0f).epsilon(1e-6));
    CHECK(out(1, 0, 0) == doctest::Approx(0.299f));
    CHECK(out(1, 0, 1) == doctest::Approx(-0.168736f));
    CHECK(out(1, 0, 2) == doctest::Approx(0.5f));
    CHECK(out(2, 0, 1) == doctest::Approx(0.5f));
    CHECK(out(2, 0, 2) == doctest::Approx(-0.081312f));
}

TEST_CASE("ycbcr_to_rgb inverts rgb_to_ycbcr, and further dimensions pass through") {
    Buffer<float> in = random_buffer({5, 4, 3, 2}, 0.0f, 1.0f, 2);
    Func round_trip = image::ycbcr_to_rgb(image::rgb_to_ycbcr(Func(in), "ycc"), "rgb");
    Buffer<float> out = round_trip.realize({5, 4, 3, 2});
    out.for_each_element([&](int x, int y, int c, int n) {
        CHECK(out(x, y, c, n) == doctest::Approx(in(x, y, c, n)).epsilon(1e-5));
    });
}

TEST_CASE("apply_color_matrix multiplies by the 3x3 part and adds the last column") {
    Buffer<float> in = random_buffer({6, 5, 3}, 0.0f, 1.0f, 3);
    Buffer<float> matrix(4, 3);
    const std::array<float, 12> rows = {1.5f, -0.3f, -0.2f, 0.01f,   //
                                        -0.1f, 1.4f, -0.3f, -0.02f,  //
                                        0.05f, -0.45f, 1.4f, 0.03f};
    matrix.for_each_element([&](int column, int row) { matrix(column, row) = rows[row * 4 + column]; });
    Buffer<float> from_func = image::apply_color_matrix(Func(in), Func(matrix), "cc").realize({6, 5, 3});
    Buffer<float> from_constants =
        image::apply_color_matrix(Func(in), rows, "cc_const").realize({6, 5, 3});
    from_func.for_each_element([&](int x, int y, int c) {
        float expected = rows[c * 4 + 3];
        for (int k = 0; k < 3; ++k) expected += rows[c * 4 + k] * in(x, y, k);
        CHECK(from_func(x, y, c) == doctest::Approx(expected).epsilon(1e-5));
        CHECK(from_constants(x, y, c) == doctest::Approx(expected).epsilon(1e-5));
    });
}

TEST_CASE("tone_curve_lut: black to 0, white to 1, gamma then the S-curve in between") {
    const float gamma = 2.2f, contrast = 0.5f, black = 64, white = 1000;
    Buffer<float> lut = image::tone_curve_lut(gamma, contrast, black, white, "curve").realize({1024});
    for (int i = 0; i < 1024; ++i) {
        const float t = std::clamp((i - black) / (white - black), 0.0f, 1.0f);
        const float g = std::pow(t, 1 / gamma);
        const float expected = g + contrast * (g * g * (3 - 2 * g) - g);
        CHECK(lut(i) == doctest::Approx(expected).epsilon(1e-5));
        if (i > 0) CHECK(lut(i) >= lut(i - 1));
    }
    CHECK(lut(10) == 0.0f);
    CHECK(lut(1010) == 1.0f);
    // Without contrast it is the plain gamma curve.
    Buffer<float> plain = image::tone_curve_lut(2.0f, 0.0f, 0, 100, "plain").realize({101});
    CHECK(plain(25) == doctest::Approx(0.5f));
}

TEST_CASE("apply_lut: integers are clamped and looked up, floats interpolate") {
    Func squares("squares");
    Var i;
    squares(i) = cast<float>(i * i);
    Buffer<uint16_t> codes(4);
    codes(0) = 0;
    codes(1) = 3;
    codes(2) = 9;
    codes(3) = 60000;
    Buffer<float> looked_up = image::apply_lut(Func(codes), squares, 10, "looked_up").realize({4});
    CHECK(looked_up(0) == 0.0f);
    CHECK(looked_up(1) == 9.0f);
    CHECK(looked_up(2) == 81.0f);
    CHECK(looked_up(3) == 81.0f);

    Buffer<float> values(4);
    values(0) = 2.5f;
    values(1) = -3.0f;
    values(2) = 8.75f;
    values(3) = 100.0f;
    Buffer<float> interpolated = image::apply_lut(Func(values), squares, 10, "interpolated").realize({4});
    CHECK(interpolated(0) == doctest::Approx(6.5f));
    CHECK(interpolated(1) == 0.0f);
    CHECK(interpolated(2) == doctest::Approx(64 + 0.75f * 17));
    CHECK(interpolated(3) == 81.0f);
}

TEST_CASE("float_to_integer rounds to nearest even and saturates; integer_to_float scales") {
    Buffer<float> in(6);
    const float values[6] = {-0.2f, 0.5f, 1.5f, 2.5f, 254.6f, 300.0f};
    for (int x = 0; x < 6; ++x) in(x) = values[x];
    Buffer<uint8_t> bytes = image::float_to_integer(Func(in), UInt(8), 1.0f, "bytes").realize({6});
    CHECK(int(bytes(0)) == 0);
    CHECK(int(bytes(1)) == 0);
    CHECK(int(bytes(2)) == 2);
    CHECK(int(bytes(3)) == 2);
    CHECK(int(bytes(4)) == 255);
    CHECK(int(bytes(5)) == 255);
    Buffer<int16_t> signed_codes =
        image::float_to_integer(Func(in), Int(16), -1000.0f, "signed").realize({6});
    CHECK(int(signed_codes(0)) == 200);
    CHECK(int(signed_codes(5)) == -32768);

    Buffer<float> back = image::integer_to_float(Func(bytes), 1.0f / 255, "back").realize({6});
    CHECK(back(4) == doctest::Approx(1.0f));
    CHECK(back(2) == doctest::Approx(2.0f / 255));
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Func flat("flat");
    Var x, y;
    flat(x, y) = 1.0f;
    CHECK_THROWS_WITH(image::rgb_to_ycbcr(flat, "ycc"), doctest::Contains("flat"));
    Buffer<float> rgb = random_buffer({2, 2, 3}, 0.0f, 1.0f, 4);
    Func row_matrix("row_matrix");
    row_matrix(x) = 1.0f;
    CHECK_THROWS_WITH(image::apply_color_matrix(Func(rgb), row_matrix, "cc"), doctest::Contains("row_matrix"));
    CHECK_THROWS_WITH(image::apply_lut(Func(rgb), flat, 16, "toned"), doctest::Contains("flat"));
    Func table("table");
    table(x) = 0.0f;
    CHECK_THROWS_WITH(image::apply_lut(Func(rgb), table, 1, "toned"), doctest::Contains("at least 2 entries"));
    CHECK_THROWS_WITH(image::float_to_integer(Func(rgb), Float(16), 1.0f, "half"), doctest::Contains("half"));
}
