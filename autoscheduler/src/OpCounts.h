// OpCounts: the arithmetic of one point of a stage's definition, by kind —
// the algorithm-side features the cost model sees (see FeatureSchema.h).
//
// Example:
//   OpCounts ops = count_ops(definition.values());   // f(x) = a(x) * 2 + b(x)
//   ops.mul == 1, ops.add_sub == 1
#pragma once

#include "Halide.h"

#include <vector>

namespace strata::autoscheduler {

struct OpCounts {
    double add_sub = 0;
    double mul = 0;
    double div_mod = 0;
    double min_max = 0;
    double compare_select = 0;
    double transcendental = 0;
    double cast = 0;
    double bitwise = 0;
    // Loads from Funcs and input buffers (calls), not counting inlined ones.
    double loads = 0;

    OpCounts &operator+=(const OpCounts &o);
    OpCounts scaled(double factor) const;
    // Floating-point and integer arithmetic, weighted by cost in FMA-equivalents.
    double arithmetic() const;
};

// Counts over the expressions, as written (common subexpressions once).
OpCounts count_ops(const std::vector<Halide::Expr> &exprs);

}  // namespace strata::autoscheduler
