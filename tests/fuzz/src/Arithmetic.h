// Arithmetic: one element-wise operation at a time, with the result Halide
// gives for the element type (see ScalarType.h). The interpreter's only
// source of arithmetic, so that every stage rounds, wraps and divides alike.
#pragma once

#include "strata/fuzz/Expression.h"

namespace strata::fuzz {

// Each throws UndefinedArithmetic (Interpreter.h) where Halide's result is
// undefined: int32 overflow, or a float converted to an integer type that
// cannot hold it.
double apply_unary(UnaryOp op, ScalarType type, double a);
double apply_binary(BinaryOp op, ScalarType type, double a, double b);
bool compare(CompareOp op, double a, double b);
double convert(ScalarType to, ScalarType from, double value);

// The starting value of a min (largest) or max (smallest) reduction, as
// Halide's Type::max() and Type::min() give it: infinities for floats.
double min_identity(ScalarType type);
double max_identity(ScalarType type);

}  // namespace strata::fuzz
