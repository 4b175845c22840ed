// ResidueProof: showing that an integer condition holds everywhere, case by
// case over residues, where Halide's simplifier alone cannot.
//
// Halide's bounds of a region read through divisions by constants come out
// as differences like `(b + 9)/4 - b/4` under a min or a max: bounded (2 or
// 3, by b's residue modulo 4), but Halide's simplifier does not see through
// the floor division, so a storage bound that does hold is left to a check
// inside the GPU kernel. Writing each free variable as `L·v + r`, for every
// residue r modulo L (the lcm of the condition's constant divisors), makes
// every such division exact: `(4v + r + 9)/4 - (4v + r)/4` is the constant
// `(r + 9)/4 - r/4`, and the simplifier decides each case. The cases cover
// every integer value of every variable, so a condition proved in each of
// them holds at any values, whatever the variables stand for.
//
// Example:
//   Var b("b");
//   Expr extent = max(min(b/4 + (12 - (b + 1) % 4)/4, (b + 5)/4 + 1), (b + 9)/4) - b/4;
//   can_prove(extent <= 3);              // false: Halide cannot show it
//   holds_at_every_residue(extent <= 3); // true: 2 or 3 for every b
//   holds_at_every_residue(extent <= 2); // false: 3 where b % 4 == 3
#pragma once

#include "Halide.h"

namespace strata::autoscheduler {

// Whether `condition` is true for every integer value of each variable it
// names, shown over the residues of its free variables modulo the lcm of its
// constant divisors. False where it is not, or where the case split is too
// large to try (an lcm over 64, over 4096 cases, or a variable that is not
// an integer).
bool holds_at_every_residue(const Halide::Expr &condition);

}  // namespace strata::autoscheduler
