#include "strata/fuzz/Expression.h"

#include "ParseName.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace strata::fuzz {

namespace {

constexpr UnaryOp kUnaryOps[] = {UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sqrt, UnaryOp::Exp,
                                 UnaryOp::Log, UnaryOp::Sin, UnaryOp::Cos,  UnaryOp::Tanh};
constexpr BinaryOp kBinaryOps[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul,       BinaryOp::Div,
                                   BinaryOp::Mod, BinaryOp::Min, BinaryOp::Max,       BinaryOp::And,
                                   BinaryOp::Or,  BinaryOp::Xor, BinaryOp::ShiftLeft, BinaryOp::ShiftRight};
constexpr CompareOp kCompareOps[] = {CompareOp::Less, CompareOp::LessEqual, CompareOp::Equal, CompareOp::NotEqual};

bool integer_only(BinaryOp op) {
    switch (op) {
    case BinaryOp::Mod:
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
    case BinaryOp::ShiftLeft:
    case BinaryOp::ShiftRight: return true;
    default: return false;
    }
}

[[noreturn]] void type_error(const Expr &expr, const std::string &problem) {
    throw std::invalid_argument("expression " + to_string(expr) + ": " + problem);
}

}  // namespace

Expr operand(int index, int element, ScalarType type) {
    Expr e;
    e.kind = Expr::Kind::Operand;
    e.operand = index;
    e.element = element;
    e.type = type;
    return e;
}

Expr constant(ScalarType type, double value) {
    Expr e;
    e.kind = Expr::Kind::Constant;
    e.type = type;
    e.value = value;
    return e;
}

Expr coordinate(int dim) {
    Expr e;
    e.kind = Expr::Kind::Coordinate;
    e.type = ScalarType::Int32;
    e.dim = dim;
    return e;
}

Expr cast(ScalarType type, Expr value) {
    Expr e;
    e.kind = Expr::Kind::Cast;
    e.type = type;
    e.args = {std::move(value)};
    return e;
}

Expr unary(UnaryOp op, Expr value) {
    Expr e;
    e.kind = Expr::Kind::Unary;
    e.unary = op;
    e.type = value.type;
    e.args = {std::move(value)};
    return e;
}

Expr binary(BinaryOp op, Expr a, Expr b) {
    Expr e;
    e.kind = Expr::Kind::Binary;
    e.binary = op;
    e.type = a.type;
    e.args = {std::move(a), std::move(b)};
    return e;
}

Expr select(CompareOp op, Expr lhs, Expr rhs, Expr then_value, Expr else_value) {
    Expr e;
    e.kind = Expr::Kind::Select;
    e.compare = op;
    e.type = then_value.type;
    e.args = {std::move(lhs), std::move(rhs), std::move(then_value), std::move(else_value)};
    return e;
}

const char *name_of(UnaryOp op) {
    switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Tanh: return "tanh";
    }
    return "unknown";
}

const char *name_of(BinaryOp op) {
    switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::Mod: return "mod";
    case BinaryOp::Min: return "min";
    case BinaryOp::Max: return "max";
    case BinaryOp::And: return "and";
    case BinaryOp::Or: return "or";
    case BinaryOp::Xor: return "xor";
    case BinaryOp::ShiftLeft: return "shl";
    case BinaryOp::ShiftRight: return "shr";
    }
    return "unknown";
}

const char *name_of(CompareOp op) {
    switch (op) {
    case CompareOp::Less: return "lt";
    case CompareOp::LessEqual: return "le";
    case CompareOp::Equal: return "eq";
    case CompareOp::NotEqual: return "ne";
    }
    return "unknown";
}

UnaryOp parse_unary_op(const std::string &name) { return parse_name(name, kUnaryOps, "unary operation"); }
BinaryOp parse_binary_op(const std::string &name) { return parse_name(name, kBinaryOps, "binary operation"); }
CompareOp parse_compare_op(const std::string &name) { return parse_name(name, kCompareOps, "comparison"); }

void infer_types(Expr &expr, const std::function<ScalarType(int, int)> &operand_type, int rank) {
    for (Expr &arg : expr.args) infer_types(arg, operand_type, rank);
    auto expect_args = [&](size_t n) {
        if (expr.args.size() != n) type_error(expr, "takes " + std::to_string(n) + " arguments");
    };
    switch (expr.kind) {
    case Expr::Kind::Operand:
        expect_args(0);
        expr.type = operand_type(expr.operand, expr.element);
        break;
    case Expr::Kind::Constant:
        expect_args(0);
        if (!std::isfinite(expr.value)) type_error(expr, "a constant must be finite");
        if (!is_float(expr.type) && (expr.value != std::floor(expr.value) || expr.value < lowest_of(expr.type) ||
                                     expr.value > highest_of(expr.type))) {
            type_error(expr, std::string("the constant does not fit in ") + name_of(expr.type));
        }
        break;
    case Expr::Kind::Coordinate:
        expect_args(0);
        if (expr.dim < 0 || expr.dim >= rank) {
            type_error(expr, "dimension " + std::to_string(expr.dim) + " of a " + std::to_string(rank) + "-D stage");
        }
        expr.type = ScalarType::Int32;
        break;
    case Expr::Kind::Cast: expect_args(1); break;
    case Expr::Kind::Unary:
        expect_args(1);
        expr.type = expr.args[0].type;
        if (expr.unary != UnaryOp::Neg && expr.unary != UnaryOp::Abs && !is_float(expr.type)) {
            type_error(expr, std::string(name_of(expr.unary)) + " takes a float, not " + name_of(expr.type));
        }
        break;
    case Expr::Kind::Binary: {
        expect_args(2);
        const ScalarType a = expr.args[0].type, b = expr.args[1].type;
        if (a != b) type_error(expr, std::string("mixes ") + name_of(a) + " and " + name_of(b));
        expr.type = a;
        if (integer_only(expr.binary) && is_float(a)) {
            type_error(expr, std::string(name_of(expr.binary)) + " takes integers, not " + name_of(a));
        }
        if (expr.binary == BinaryOp::ShiftLeft || expr.binary == BinaryOp::ShiftRight) {
            const Expr &amount = expr.args[1];
            if (amount.kind != Expr::Kind::Constant || amount.value < 0 || amount.value >= bits_of(a)) {
                type_error(expr, "the shift amount must be a constant below " + std::to_string(bits_of(a)));
            }
        }
        break;
    }
    case Expr::Kind::Select:
        expect_args(4);
        if (expr.args[0].type != expr.args[1].type) type_error(expr, "compares values of different types");
        if (expr.args[2].type != expr.args[3].type) type_error(expr, "selects between values of different types");
        expr.type = expr.args[2].type;
        break;
    }
}

int count_nodes(const Expr &expr) {
    int n = 1;
    for (const Expr &arg : expr.args) n += count_nodes(arg);
    return n;
}

void collect_operands(const Expr &expr, std::vector<int> &indices) {
    if (expr.kind == Expr::Kind::Operand) indices.push_back(expr.operand);
    for (const Expr &arg : expr.args) collect_operands(arg, indices);
}

std::string to_string(const Expr &expr) {
    std::ostringstream s;
    switch (expr.kind) {
    case Expr::Kind::Operand:
        s << "op" << expr.operand;
        if (expr.element) s << "[" << expr.element << "]";
        return s.str();
    case Expr::Kind::Constant:
        s << expr.value << (expr.type == ScalarType::Float32 ? "f" : "");
        if (!is_float(expr.type) && expr.type != ScalarType::Int32) s << ":" << name_of(expr.type);
        return s.str();
    case Expr::Kind::Coordinate: s << "x" << expr.dim; return s.str();
    case Expr::Kind::Cast: s << name_of(expr.type); break;
    case Expr::Kind::Unary: s << name_of(expr.unary); break;
    case Expr::Kind::Binary: s << name_of(expr.binary); break;
    case Expr::Kind::Select: s << "select_" << name_of(expr.compare); break;
    }
    s << "(";
    for (size_t i = 0; i < expr.args.size(); ++i) s << (i ? ", " : "") << to_string(expr.args[i]);
    s << ")";
    return s.str();
}

}  // namespace strata::fuzz
