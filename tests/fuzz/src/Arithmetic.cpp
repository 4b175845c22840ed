#include "Arithmetic.h"

#include "strata/fuzz/Interpreter.h"

#include <cmath>
#include <limits>

namespace strata::fuzz {

namespace {

// An exact integer result stored in `type`: narrow types wrap, int32 must fit.
double store_integer(ScalarType type, int64_t exact) {
    if (type == ScalarType::Int32 &&
        (exact < std::numeric_limits<int32_t>::min() || exact > std::numeric_limits<int32_t>::max())) {
        throw UndefinedArithmetic("int32 overflow (" + std::to_string(exact) + ")");
    }
    return wrap(type, double(exact));
}

template <typename T>
T float_binary(BinaryOp op, T a, T b) {
    switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    case BinaryOp::Min: return std::fmin(a, b);
    case BinaryOp::Max: return std::fmax(a, b);
    default: throw std::invalid_argument(std::string(name_of(op)) + " of a float");
    }
}

template <typename F>
double float_unary(ScalarType type, double a, F &&f) {
    return type == ScalarType::Float32 ? double(f(float(a))) : f(a);
}

}  // namespace

double apply_unary(UnaryOp op, ScalarType type, double a) {
    if (!is_float(type)) {
        const int64_t v = int64_t(a);
        if (op == UnaryOp::Neg) return store_integer(type, -v);
        if (op == UnaryOp::Abs) return store_integer(type, v < 0 ? -v : v);
        throw std::invalid_argument(std::string(name_of(op)) + " of an integer");
    }
    switch (op) {
    case UnaryOp::Neg: return -a;
    case UnaryOp::Abs: return std::fabs(a);
    case UnaryOp::Sqrt: return float_unary(type, a, [](auto v) { return std::sqrt(v); });
    case UnaryOp::Exp: return float_unary(type, a, [](auto v) { return std::exp(v); });
    case UnaryOp::Log: return float_unary(type, a, [](auto v) { return std::log(v); });
    case UnaryOp::Sin: return float_unary(type, a, [](auto v) { return std::sin(v); });
    case UnaryOp::Cos: return float_unary(type, a, [](auto v) { return std::cos(v); });
    case UnaryOp::Tanh: return float_unary(type, a, [](auto v) { return std::tanh(v); });
    }
    return a;
}

double apply_binary(BinaryOp op, ScalarType type, double a, double b) {
    if (type == ScalarType::Float32) return double(float_binary(op, float(a), float(b)));
    if (type == ScalarType::Float64) return float_binary(op, a, b);
    const int64_t x = int64_t(a), y = int64_t(b);
    switch (op) {
    case BinaryOp::Add: return store_integer(type, x + y);
    case BinaryOp::Sub: return store_integer(type, x - y);
    case BinaryOp::Mul: return store_integer(type, x * y);
    case BinaryOp::Div: return store_integer(type, euclid_div(x, y));
    case BinaryOp::Mod: return store_integer(type, euclid_mod(x, y));
    case BinaryOp::Min: return double(std::min(x, y));
    case BinaryOp::Max: return double(std::max(x, y));
    case BinaryOp::And: return store_integer(type, x & y);
    case BinaryOp::Or: return store_integer(type, x | y);
    case BinaryOp::Xor: return store_integer(type, x ^ y);
    case BinaryOp::ShiftLeft: return store_integer(type, x * (int64_t(1) << y));
    case BinaryOp::ShiftRight: return store_integer(type, euclid_div(x, int64_t(1) << y));
    }
    return a;
}

bool compare(CompareOp op, double a, double b) {
    switch (op) {
    case CompareOp::Less: return a < b;
    case CompareOp::LessEqual: return a <= b;
    case CompareOp::Equal: return a == b;
    case CompareOp::NotEqual: return a != b;
    }
    return false;
}

double convert(ScalarType to, ScalarType from, double value) {
    if (is_float(to)) return wrap(to, value);
    if (is_float(from)) {
        const double truncated = std::trunc(value);
        if (!(truncated >= lowest_of(to) && truncated <= highest_of(to))) {
            throw UndefinedArithmetic(std::string("converting ") + std::to_string(value) + " to " + name_of(to));
        }
        return truncated;
    }
    // Integer to integer wraps, int32 included (Halide defines narrowing casts).
    return wrap(to, value);
}

double min_identity(ScalarType type) {
    return is_float(type) ? std::numeric_limits<double>::infinity() : highest_of(type);
}

double max_identity(ScalarType type) {
    return is_float(type) ? -std::numeric_limits<double>::infinity() : lowest_of(type);
}

}  // namespace strata::fuzz
