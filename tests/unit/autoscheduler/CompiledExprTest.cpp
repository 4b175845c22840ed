#include "CompiledExpr.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace Halide;
using strata::autoscheduler::CompiledExpr;

namespace {
Expr sym(const std::string &name) { return Internal::Variable::make(Int(32), name); }
}  // namespace

TEST_CASE("arithmetic over symbols evaluates like Halide") {
    const std::vector<std::string> symbols = {"a", "b"};
    auto e = CompiledExpr::compile(max(sym("a") * 2 - 3, sym("b") / 4), symbols);
    REQUIRE(e.has_value());
    int64_t v1[] = {5, 100};
    CHECK(e->evaluate(v1) == 25);
    int64_t v2[] = {-3, 8};
    CHECK(e->evaluate(v2) == 2);
    CHECK_FALSE(e->is_constant());
}

TEST_CASE("division and modulus round towards negative infinity") {
    const std::vector<std::string> symbols = {"a"};
    auto div = CompiledExpr::compile(sym("a") / 4, symbols);
    auto mod = CompiledExpr::compile(sym("a") % 4, symbols);
    int64_t v[] = {-5};
    CHECK(div->evaluate(v) == -2);
    CHECK(mod->evaluate(v) == 3);
}

TEST_CASE("a mirrored coordinate's absolute value evaluates, and a constant one folds to a number") {
    // BoundaryConditions::mirror_interior folds a coordinate with abs(),
    // whose unsigned result Halide casts back to signed.
    const std::vector<std::string> symbols = {"y"};
    auto e = CompiledExpr::compile(6 - cast<int>(abs(sym("y") - 6)), symbols);
    REQUIRE(e.has_value());
    for (const auto &[y, folded] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {4, 4}, {6, 6}, {9, 3}, {12, 0}}) {
        int64_t v[] = {y};
        CHECK(e->evaluate(v) == folded);
        CHECK(e->canonical({strata::autoscheduler::IndexForm::number(y)}) ==
              strata::autoscheduler::IndexForm::number(folded));
    }
}

TEST_CASE("select and comparisons") {
    const std::vector<std::string> symbols = {"a"};
    auto e = CompiledExpr::compile(select(sym("a") < 10 && sym("a") != 3, sym("a"), 0), symbols);
    REQUIRE(e.has_value());
    int64_t v[] = {3};
    CHECK(e->evaluate(v) == 0);
    v[0] = 7;
    CHECK(e->evaluate(v) == 7);
}

TEST_CASE("unknown variables, floats and loads are refused") {
    const std::vector<std::string> symbols = {"a"};
    CHECK_FALSE(CompiledExpr::compile(sym("elsewhere") + 1, symbols).has_value());
    CHECK_FALSE(CompiledExpr::compile(cast<int>(cast<float>(sym("a")) * 0.5f), symbols).has_value());
    Func f("table");
    Var x;
    f(x) = x;
    CHECK_FALSE(CompiledExpr::compile(f(sym("a")), symbols).has_value());
}

TEST_CASE("the floor of a float affine in integers is a floor division") {
    // A bilateral grid's cell of a pixel, as Halide's simplifier writes it:
    // floor((x - 0.5) / 32) = floor((32 x - 16) / 1024) at the constants'
    // exact values (0.03125 = 1/32, -0.015625 = -1/64).
    const std::vector<std::string> symbols = {"a", "b"};
    const Expr cell = cast<int>(floor(cast<float>(sym("a")) * 0.03125f + -0.015625f));
    const Expr mixed = cast<int>(floor((cast<float>(sym("a") * 3) - cast<float>(sym("b"))) * 0.25f + 2.5f));
    auto e = CompiledExpr::compile(cell, symbols), m = CompiledExpr::compile(mixed, symbols);
    REQUIRE(e.has_value());
    REQUIRE(m.has_value());
    for (int64_t a : {-40, -33, -1, 0, 1, 31, 32, 33, 1000}) {
        for (int64_t b : {-7, 0, 5}) {
            INFO(a << ", " << b);
            int64_t v[] = {a, b};
            const double f = std::floor(double(a) / 32 - 1.0 / 64), g = std::floor((3.0 * a - b) / 4 + 2.5);
            CHECK(e->evaluate(v) == int64_t(f));
            CHECK(m->evaluate(v) == int64_t(g));
        }
    }
    // Not a floor (a cast truncates toward zero), or not affine: refused.
    CHECK_FALSE(CompiledExpr::compile(cast<int>(cast<float>(sym("a")) * 0.5f), symbols).has_value());
    CHECK_FALSE(CompiledExpr::compile(cast<int>(floor(sqrt(cast<float>(sym("a"))))), symbols).has_value());
}

TEST_CASE("the symbols an expression reads, whether or not its value follows them") {
    const Halide::Var r("r");
    const auto e = CompiledExpr::compile(Halide::min(r, 13) / 2, {"x", "r"});
    REQUIRE(e);
    CHECK(e->uses_symbol(1));  // r: steps 14 and 15 reach one value, but it is read
    CHECK_FALSE(e->uses_symbol(0));
    CHECK_FALSE(CompiledExpr::constant(3).uses_symbol(0));
}

TEST_CASE("constants") {
    auto e = CompiledExpr::compile(Expr(3) * 7, {});
    REQUIRE(e.has_value());
    CHECK(e->is_constant());
    CHECK(e->constant_value() == 21);
    CHECK(CompiledExpr::constant(-4).constant_value() == -4);
}

TEST_CASE("compiler hints keep the value they wrap") {
    const std::vector<std::string> symbols = {"a"};
    auto e = CompiledExpr::compile(Internal::Call::make(Int(32), Internal::Call::likely, {sym("a") + 1},
                                                        Internal::Call::PureIntrinsic),
                                   symbols);
    REQUIRE(e.has_value());
    int64_t v[] = {41};
    CHECK(e->evaluate(v) == 42);
}

TEST_CASE("canonical forms are equal where Halide's simplifier writes two indices alike, and only there") {
    using strata::autoscheduler::IndexForm;
    const std::vector<std::string> symbols = {"a", "b"};
    auto form = [&](const Expr &e) {
        auto c = CompiledExpr::compile(e, symbols);
        REQUIRE(c.has_value());
        return c->canonical({});
    };
    const Expr a = sym("a"), b = sym("b");
    // Affine arithmetic folds: the order of inlined offsets does not matter.
    CHECK(form((a + 1) + 2) == form(a + 3));
    CHECK(form((a - 1) + b + 1) == form(b + a));
    CHECK(form(a * 4 - a * 2) == form(a * 2));
    CHECK(form((a + 1) + 2).affine());
    // Exact divisions come out of a division or a modulus by a constant.
    CHECK(form((a + 4) / 2) == form(a / 2 + 2));
    CHECK(form((a * 4 + b) / 4) == form(b / 4 + a));
    CHECK(form((a * 4 + b + 5) % 4) == form((b + 1) % 4));
    CHECK(form((a + 3) / 2).hash() != form(a / 2 + 1).hash());
    CHECK_FALSE(form(a / 2).affine());
    // Operands a constant apart decide min, max and comparisons statically.
    CHECK(form(min(a + 1, a + 3)) == form(a + 1));
    CHECK(form(select(a < a + 1, b, a)) == form(b));
    // Clamps are compared by their text: two paths through nested
    // boundary conditions that meet inside the image stay apart.
    const Expr inner_then_shift = clamp(clamp(a + 2, 0, 9) - 1, 0, 9);
    const Expr shift_then_inner = clamp(clamp(a, 0, 9) + 1, 0, 9);
    CHECK(form(inner_then_shift).hash() != form(shift_then_inner).hash());
    CHECK(form(min(a, b)) == form(min(b, a)));
    CHECK_FALSE(form(clamp(a, 0, 9)).affine());
}

TEST_CASE("a canonical form substitutes the forms given for its symbols") {
    using strata::autoscheduler::IndexForm;
    // g(y) = in(y - 1) called as g(x + 1): the composed index is x.
    const std::vector<std::string> symbols = {"y"};
    auto callee = CompiledExpr::compile(sym("y") - 1, symbols);
    REQUIRE(callee.has_value());
    const IndexForm x = IndexForm::atom(42);
    CHECK(callee->canonical({x + IndexForm::number(1)}) == x);
}
