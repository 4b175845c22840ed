#include "strata/dsl/nn/Activation.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
namespace nn = strata::dsl::nn;

namespace {

// Values from -6 to 6 in steps of 1/16 along x, over a few rows.
Buffer<float> ramp() {
    Buffer<float> b(193, 2);
    b.for_each_element([&](int x, int y) { b(x, y) = float(x - 96) / 16.0f + (y ? 0.01f : 0.0f); });
    return b;
}

}  // namespace

TEST_CASE("relu clamps negatives to zero and keeps positives") {
    Buffer<float> in = ramp();
    Buffer<float> out = nn::relu(Func(in), "r").realize({193, 2});
    out.for_each_element([&](int x, int y) { CHECK(out(x, y) == std::max(in(x, y), 0.0f)); });
}

// 1 + erf(x/√2) cancels for negative x, so float32 GELU has an absolute,
// not relative, error bound there.
TEST_CASE("gelu (erf) is x Φ(x)") {
    Buffer<float> in = ramp();
    Buffer<float> out = nn::gelu(Func(in), nn::Gelu::Erf, "g").realize({193, 2});
    out.for_each_element([&](int x, int y) {
        const double v = in(x, y), expected = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        CHECK(std::abs(out(x, y) - expected) <= 1e-6 + 1e-5 * std::abs(expected));
    });
}

TEST_CASE("gelu (tanh) follows its formula and stays within 5e-4 of the exact form") {
    Buffer<float> in = ramp();
    Buffer<float> out = nn::gelu(Func(in), nn::Gelu::Tanh, "g").realize({193, 2});
    out.for_each_element([&](int x, int y) {
        const double v = in(x, y);
        const double tanh_form = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        const double exact = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        CHECK(std::abs(out(x, y) - tanh_form) <= 1e-6 + 1e-5 * std::abs(tanh_form));
        CHECK(std::abs(out(x, y) - exact) < 5e-4);
    });
}

TEST_CASE("sigmoid is 1 / (1 + e^-x), saturating without NaNs") {
    Buffer<float> in = ramp();
    in(0, 0) = -200.0f;
    in(192, 0) = 200.0f;
    Buffer<float> out = nn::sigmoid(Func(in), "s").realize({193, 2});
    out.for_each_element([&](int x, int y) {
        CHECK(out(x, y) == doctest::Approx(1.0 / (1.0 + std::exp(-double(in(x, y))))).epsilon(1e-5));
    });
    CHECK(out(0, 0) == 0.0f);
    CHECK(out(192, 0) == 1.0f);
}

TEST_CASE("activations refuse an undefined input") {
    CHECK_THROWS_WITH(nn::relu(Func(), "r"), doctest::Contains("undefined"));
}
