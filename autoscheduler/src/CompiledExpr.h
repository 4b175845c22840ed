// CompiledExpr: an integer Halide expression over a fixed list of named
// symbols, compiled once into a flat program that the search can evaluate
// millions of times without touching Halide's IR.
//
// Footprints from Halide's bounds machinery (min/max of each producer
// dimension as functions of a consumer's loop bounds), RDom extents and call
// indices all end up as CompiledExprs. Anything outside the supported
// grammar — a load, a float, an unknown variable — makes compile() return
// nothing, and callers fall back to a conservative answer. One float form
// is compiled: the integer floor of a float affine in integer terms with
// constant coefficients (the grid cell a pixel falls in, a resize's source
// pixel), as a floor division.
//
// Example:
//   std::vector<std::string> symbols = {"x.min", "x.max"};
//   auto e = CompiledExpr::compile(simplify(x_max + 1), symbols);
//   int64_t values[] = {0, 63};
//   int64_t v = e->evaluate(values);   // 64
#pragma once

#include "Halide.h"
#include "IndexForm.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::autoscheduler {

class CompiledExpr {
public:
    static std::optional<CompiledExpr> compile(const Halide::Expr &e, const std::vector<std::string> &symbols);
    static CompiledExpr constant(int64_t value);

    // `symbol_values` has one entry per symbol given to compile().
    int64_t evaluate(const int64_t *symbol_values) const;

    bool is_constant() const;
    // Valid only if is_constant().
    int64_t constant_value() const { return evaluate(nullptr); }

    // Whether it wraps or chooses (mod, select): a footprint with such terms
    // can cover much more at some places than at others (a repeated image
    // wraps to its whole width), so no one place tells its largest size.
    bool wraps_or_chooses() const;
    // Whether it clamps (min, max).
    bool clamps() const;
    // Whether it reads symbol `index` (its position in compile()'s list):
    // whether Halide's code for it must be recomputed as that symbol moves,
    // even where a rounding or a clamp keeps the value.
    bool uses_symbol(int index) const;

    // The period of its rounding: the product of the constant divisors it
    // divides by (1 without division; capped at 2^20), or 0 when a divisor
    // is not a constant. A footprint's size repeats with the position of the
    // box modulo that period.
    int64_t rounding_period() const;

    // The expression as Halide's simplifier would write it (IndexForm.h),
    // symbol i standing for `symbols[i]`: forms of the caller's indices
    // where a chain of inlined Funcs is composed.
    IndexForm canonical(const std::vector<IndexForm> &symbols) const;
    // The form canonical() gives symbol `index` when `symbols` has none for it.
    static IndexForm symbol_form(int index);

    // Bytes equal for two expressions exactly when they compile to the same
    // operations: a map key for indices that read one address.
    std::string key() const;

private:
    enum class OpCode : uint8_t {
        Const, Symbol, Add, Sub, Mul, Div, Mod, Min, Max, Lt, Le, Eq, Ne, And, Or, Not, Select
    };
    struct Op {
        OpCode code;
        int64_t value;  // Const: the value; Symbol: its index
        int a, b, c;    // operand slots (earlier ops)
    };
    friend class ExprCompiler;

    std::vector<Op> ops_;  // in evaluation order; the result is the last
};

}  // namespace strata::autoscheduler
