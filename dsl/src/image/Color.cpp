#include "strata/dsl/image/Color.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

#include <sstream>
#include <vector>

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;

namespace {

// out(..., c, ...) = sum_k rows[c][k] * in(..., k, ...) over the channel dimension 2.
Func mix_channels(const Func &in, const std::array<std::array<float, 3>, 3> &rows, const std::string &name,
                  const std::string &op) {
    require_dimensions(in, 3, op + " '" + name + "'");
    std::vector<Halide::Var> v = pure_vars(in, name);
    std::vector<Expr> channels;
    for (const auto &row : rows) {
        Expr sum;
        for (int k = 0; k < 3; ++k) {
            Expr term = row[k] * Halide::cast<float>(replaced(in, v, 2, k));
            sum = sum.defined() ? sum + term : term;
        }
        channels.push_back(sum);
    }
    Func out(name);
    out(v) = Halide::mux(v[2], channels);
    return out;
}

bool is_integer(const Halide::Type &t) {
    return t.is_int() || t.is_uint();
}

std::string type_name(const Halide::Type &t) {
    std::ostringstream s;
    s << t;
    return s.str();
}

}  // namespace

Func luminance(const Func &rgb, const std::string &name) {
    require_dimensions(rgb, 3, "luminance");
    Halide::Var x(name + "_x"), y(name + "_y");
    auto channel = [&](int c) { return Halide::cast<float>(rgb(x, y, c)); };
    Func gray(name);
    gray(x, y) = 0.299f * channel(0) + 0.587f * channel(1) + 0.114f * channel(2);
    return gray;
}

Func rgb_to_ycbcr(const Func &rgb, const std::string &name) {
    return mix_channels(rgb,
                        {{{0.299f, 0.587f, 0.114f},
                          {-0.168736f, -0.331264f, 0.5f},
                          {0.5f, -0.418688f, -0.081312f}}},
                        name, "rgb_to_ycbcr");
}

Func ycbcr_to_rgb(const Func &ycbcr, const std::string &name) {
    return mix_channels(ycbcr, {{{1.0f, 0.0f, 1.402f}, {1.0f, -0.344136f, -0.714136f}, {1.0f, 1.772f, 0.0f}}}, name,
                        "ycbcr_to_rgb");
}

Func apply_color_matrix(const Func &rgb, const Func &matrix, const std::string &name) {
    const std::string op = "apply_color_matrix '" + name + "'";
    require_dimensions(rgb, 3, op);
    require(matrix.defined() && matrix.dimensions() == 2,
            op + ": the matrix Func '" + matrix.name() + "' must have 2 dimensions (column, row), it has " +
                std::to_string(matrix.defined() ? matrix.dimensions() : 0));
    std::vector<Halide::Var> v = pure_vars(rgb, name);
    const Halide::Var &c = v[2];
    auto m = [&](int column) { return Halide::cast<float>(matrix(column, c)); };
    Expr sum = m(3);
    for (int k = 0; k < 3; ++k) sum += m(k) * Halide::cast<float>(replaced(rgb, v, 2, k));
    Func out(name);
    out(v) = sum;
    return out;
}

Func apply_color_matrix(const Func &rgb, const std::array<float, 12> &rows, const std::string &name) {
    const std::string op = "apply_color_matrix '" + name + "'";
    require_dimensions(rgb, 3, op);
    std::vector<Halide::Var> v = pure_vars(rgb, name);
    std::vector<Expr> channels;
    for (int row = 0; row < 3; ++row) {
        Expr sum = rows[row * 4 + 3];
        for (int k = 0; k < 3; ++k) sum += rows[row * 4 + k] * Halide::cast<float>(replaced(rgb, v, 2, k));
        channels.push_back(sum);
    }
    Func out(name);
    out(v) = Halide::mux(v[2], channels);
    return out;
}

Func tone_curve_lut(const Expr &gamma, const Expr &contrast, const Expr &black_level, const Expr &white_level,
                    const std::string &name) {
    for (const Expr &e : {gamma, contrast, black_level, white_level}) {
        require(e.defined(), "tone_curve_lut '" + name + "': every parameter must be defined");
    }
    Halide::Var i(name + "_i");
    const Expr black = Halide::cast<float>(black_level);
    // A degenerate range would divide by zero; treat it as a step at black.
    const Expr range = Halide::max(Halide::cast<float>(white_level) - black, 1e-6f);
    const Expr t = Halide::clamp((Halide::cast<float>(i) - black) / range, 0.0f, 1.0f);
    const Expr g = Halide::pow(t, 1.0f / Halide::cast<float>(gamma));
    const Expr s_curve = g * g * (3.0f - 2.0f * g);
    Func lut(name);
    lut(i) = g + Halide::cast<float>(contrast) * (s_curve - g);
    return lut;
}

Func apply_lut(const Func &input, const Func &lut, int size, const std::string &name) {
    const std::string op = "apply_lut '" + name + "'";
    require(input.defined(), op + ": the input Func is undefined");
    require(lut.defined() && lut.dimensions() == 1,
            op + ": the lookup table '" + lut.name() + "' must be a defined Func of one dimension");
    require(size >= 2, op + ": the table needs at least 2 entries, got " + std::to_string(size));
    std::vector<Halide::Var> v = pure_vars(input, name);
    Expr value = input(v);
    const Halide::Type type = value.type();
    Func out(name);
    if (type.is_float()) {
        const Expr position = Halide::clamp(Halide::cast<float>(value), 0.0f, float(size - 1));
        const Expr index = Halide::min(Halide::cast<int>(position), size - 2);
        const Expr fraction = position - Halide::cast<float>(index);
        const Expr low = lut(index), high = lut(index + 1);
        out(v) = low + (high - low) * fraction;
    } else {
        require(is_integer(type), op + ": cannot look up values of type " + type_name(type));
        // Narrow types widen before clamping so that size - 1 is representable.
        if (type.bits() < 32) value = Halide::cast<int>(value);
        const Expr index = Halide::clamp(value, Halide::cast(value.type(), 0), Halide::cast(value.type(), size - 1));
        out(v) = lut(Halide::cast<int>(index));
    }
    return out;
}

Func integer_to_float(const Func &input, float scale, const std::string &name) {
    require(input.defined(), "integer_to_float '" + name + "': the input Func is undefined");
    std::vector<Halide::Var> v = pure_vars(input, name);
    Func out(name);
    out(v) = Halide::cast<float>(input(v)) * scale;
    return out;
}

Func float_to_integer(const Func &input, Halide::Type type, float scale, const std::string &name) {
    const std::string op = "float_to_integer '" + name + "'";
    require(input.defined(), op + ": the input Func is undefined");
    require(is_integer(type) && type.is_scalar(),
            op + ": the result type must be a scalar integer type, got " + type_name(type));
    std::vector<Halide::Var> v = pure_vars(input, name);
    Func out(name);
    out(v) = Halide::saturating_cast(type, Halide::round(Halide::cast<float>(input(v)) * scale));
    return out;
}

}  // namespace strata::dsl::image
