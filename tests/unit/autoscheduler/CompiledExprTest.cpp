#include "CompiledExpr.h"

#include <doctest/doctest.h>

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
