// Tests for ResidueProof (an integer condition proved residue by residue).
#include "ResidueProof.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using Halide::Expr;
using Halide::Var;

TEST_CASE("a difference of floor divisions Halide cannot bound is proved at every residue") {
    Var b("b");
    // Halide's own bound on rows of interpolate's level 6 read from a tile
    // of level 4 starting at row b (less one): 2 or 3 by b's residue
    // modulo 4 (3 at b % 4 == 3).
    const Expr extent =
        Halide::max(Halide::min(b / 4 + (12 - (b + 1) % 4) / 4, (b + 5) / 4 + 1), (b + 9) / 4) - b / 4;
    CHECK_FALSE(Halide::Internal::can_prove(extent <= 3));
    CHECK(holds_at_every_residue(extent <= 3));
    CHECK_FALSE(holds_at_every_residue(extent <= 2));
    CHECK(holds_at_every_residue(extent >= 2));
}

TEST_CASE("residues of several variables are combined; moduli and divisions mix") {
    Var a("a"), b("b");
    // The carry of a sum: (a + b) / 6 - a / 6 - b / 6 is 0 or 1.
    const Expr carry = (a + b) / 6 - a / 6 - b / 6;
    CHECK_FALSE(Halide::Internal::can_prove(carry <= 1));
    CHECK(holds_at_every_residue(carry <= 1));
    CHECK(holds_at_every_residue(carry >= 0));
    CHECK_FALSE(holds_at_every_residue(carry <= 0));
    // A modulus beside a division: b / 2 * 2 - b is 0 or -1.
    CHECK(holds_at_every_residue(a % 4 + b / 2 * 2 - b <= 3));
    CHECK_FALSE(holds_at_every_residue(a % 4 + b / 2 * 2 - b <= 2));
}

TEST_CASE("what the residues cannot decide is not proved") {
    Var a("a"), b("b"), n("n");
    // Unbounded in a: true for small a only.
    CHECK_FALSE(holds_at_every_residue(a / 4 <= 100));
    // A clamp to a symbolic extent: no residue decides it.
    CHECK_FALSE(holds_at_every_residue(Halide::min(a / 4, n) - a / 4 >= 0));
    // No division at all: nothing to split on, as Halide decides.
    CHECK_FALSE(holds_at_every_residue(a <= b));
    CHECK(holds_at_every_residue(a - a == 0));
    // A modulus past the largest tried.
    const Expr wide_carry = (a + b) / 128 - a / 128 - b / 128;  // 0 or 1
    CHECK_FALSE(Halide::Internal::can_prove(wide_carry <= 1));
    CHECK_FALSE(holds_at_every_residue(wide_carry <= 1));
    // Lets inside the condition are seen through.
    const Expr t = Halide::Internal::Variable::make(Halide::Int(32), "t");
    CHECK(holds_at_every_residue(Halide::Internal::Let::make("t", b / 4, Halide::max((b + 3) / 4, t + 1) - t <= 1)));
}
