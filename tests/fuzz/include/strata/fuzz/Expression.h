// Expression: the per-element arithmetic of a pointwise stage, as a small
// tree that the Halide builder turns into a Halide Expr and the interpreter
// evaluates directly — one description, two independent meanings.
//
// Every node has a result type; the typing rules (checked by infer_types)
// are Halide's without its implicit conversions: both sides of a binary
// operation have one type, bitwise operations and the modulus take integers,
// shifts take a constant amount below the type's width, transcendental
// functions take floats, and every conversion is an explicit Cast.
//
// Example: in0(x, y) * 0.5 + float(x)
//   Expr e = binary(BinaryOp::Add,
//                   binary(BinaryOp::Mul, operand(0, 0, ScalarType::Float32), constant(ScalarType::Float32, 0.5)),
//                   cast(ScalarType::Float32, coordinate(0)));
#pragma once

#include "strata/fuzz/ScalarType.h"

#include <functional>
#include <string>
#include <vector>

namespace strata::fuzz {

enum class UnaryOp { Neg, Abs, Sqrt, Exp, Log, Sin, Cos, Tanh };
enum class BinaryOp { Add, Sub, Mul, Div, Mod, Min, Max, And, Or, Xor, ShiftLeft, ShiftRight };
enum class CompareOp { Less, LessEqual, Equal, NotEqual };

struct Expr {
    enum class Kind { Operand, Constant, Coordinate, Cast, Unary, Binary, Select };

    Kind kind = Kind::Constant;
    ScalarType type = ScalarType::Float32;
    int operand = 0;   // Operand: index into the stage's operand list...
    int element = 0;   // ...and the tuple element read from it
    int dim = 0;       // Coordinate: the output dimension whose index is the value
    double value = 0;  // Constant
    UnaryOp unary = UnaryOp::Neg;
    BinaryOp binary = BinaryOp::Add;
    CompareOp compare = CompareOp::Less;
    // Cast and Unary: the argument. Binary: left, right. Select: the two
    // sides of the comparison, then the value if it holds and if it does not.
    std::vector<Expr> args;
};

Expr operand(int index, int element, ScalarType type);
Expr constant(ScalarType type, double value);
Expr coordinate(int dim);
Expr cast(ScalarType type, Expr value);
Expr unary(UnaryOp op, Expr value);
Expr binary(BinaryOp op, Expr a, Expr b);
Expr select(CompareOp op, Expr lhs, Expr rhs, Expr then_value, Expr else_value);

const char *name_of(UnaryOp op);
const char *name_of(BinaryOp op);
const char *name_of(CompareOp op);
// Each throws std::invalid_argument listing the valid names.
UnaryOp parse_unary_op(const std::string &name);
BinaryOp parse_binary_op(const std::string &name);
CompareOp parse_compare_op(const std::string &name);

// Gives every node its result type and checks the typing rules. Operand
// types come from `operand_type(index, element)`, which throws for an operand
// that does not exist; `rank` bounds the Coordinate dimensions. Throws
// std::invalid_argument naming the offending node.
void infer_types(Expr &expr, const std::function<ScalarType(int, int)> &operand_type, int rank);

int count_nodes(const Expr &expr);
// Every Operand node's operand index, in tree order (with repeats).
void collect_operands(const Expr &expr, std::vector<int> &indices);

// A readable one-line form, e.g. "add(mul(op0, 0.5f), float32(x0))", for
// messages and the minimizer's log.
std::string to_string(const Expr &expr);

}  // namespace strata::fuzz
