// InlinedFolds on stages whose loads, or whole update, Halide's simplifier
// removes only once a Func is inlined into them (fuzz seeds 3225, 3194,
// 3178), and the closure of inlined Funcs a kernel's roles give a stage.
#include "InlinedFolds.h"

#include "InlineChainPipeline.h"
#include "ZeroedUpdatePipeline.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;

namespace {

// The roles of a kernel of `kernel` that inlines `inlined`.
NodeMap<Role> roles(const FunctionDAG &dag, const Halide::Func &kernel, const std::vector<Halide::Func> &inlined) {
    NodeMap<Role> out;
    out.slot(dag.node(kernel.name())->id) = Role::Kernel;
    for (const Halide::Func &f : inlined) out.slot(dag.node(f.name())->id) = Role::Inlined;
    return out;
}

// The id of the Func through which the pipeline reads input `name` (the
// wrapper Halide makes for an ImageParam).
int read_through(const FunctionDAG &dag, const std::string &name) {
    for (const auto &n : dag.nodes()) {
        if (!n->is_input() && n->name.rfind(name + "_im", 0) == 0) return n->id;
    }
    FAIL("no wrapper of " << name);
    return -1;
}

const StageFolds &folds_of(InlinedFolds &folds, const FunctionDAG &dag, const Halide::Func &f, int stage,
                           const NodeMap<Role> &roles) {
    const Node &node = *dag.node(f.name());
    const Stage &s = *node.stages[size_t(stage)];
    return folds.of(s, inlined_closure(s, roles, node.id));
}

}  // namespace

TEST_CASE("the inlined closure follows inlined Funcs through each other, and stops at the others") {
    const strata::testing::InlineChainPipeline p;
    const Halide::Func &a = p.a, &b = p.b, &c = p.c, &out = p.out;
    FunctionDAG dag({out});
    const Stage &s = *dag.node(out.name())->stages[0];
    const int id_out = dag.node(out.name())->id;
    const std::vector<int> both = inlined_closure(s, roles(dag, out, {a, b}), id_out);
    CHECK(both == std::vector<int>{dag.node(a.name())->id, dag.node(b.name())->id});
    // a is reached only through b: with b computed elsewhere, nothing is.
    CHECK(inlined_closure(s, roles(dag, out, {a, c}), id_out) == std::vector<int>{dag.node(c.name())->id});
}

TEST_CASE("an update that folds to a store of its own point is a no-op only with the Func that zeroes it inlined") {
    // Inlined, zero makes the update a store of its own point (seed 3225).
    const strata::testing::ZeroedUpdatePipeline p;
    const Halide::Func &acc = p.acc, &zero = p.zero, &g = p.g;
    FunctionDAG dag({acc});
    InlinedFolds folds(dag);
    const StageFolds &inlined = folds_of(folds, dag, acc, 1, roles(dag, acc, {zero, g}));
    CHECK(inlined.no_op);
    CHECK(inlined.unread.count(read_through(dag, "w")));  // w * 0 loads nothing
    const StageFolds &apart = folds_of(folds, dag, acc, 1, roles(dag, acc, {}));
    CHECK_FALSE(apart.no_op);
    CHECK(apart.unread.empty());
    CHECK_FALSE(folds_of(folds, dag, acc, 0, roles(dag, acc, {zero, g})).no_op);  // a pure stage stores its value
}

TEST_CASE("a read that the inlined definitions cancel loads nothing, the rest of the stage still loads") {
    // out(x) = in(x) + (twice(x) % 2), twice(x) = 2 * table(x): even, so the
    // modulus is 0 and table is not read (seed 3194's (a + a) % 4).
    Halide::ImageParam in(Halide::Int(32), 1, "in"), table(Halide::Int(32), 1, "table");
    Halide::Func twice("twice"), out("out");
    Halide::Var x("x");
    twice(x) = table(x) * 2;
    out(x) = in(x) + twice(x) % 2;
    in.set_estimates({{0, 64}});
    table.set_estimates({{0, 64}});
    out.set_estimates({{0, 64}});
    FunctionDAG dag({out});
    InlinedFolds folds(dag);
    const StageFolds &f = folds_of(folds, dag, out, 0, roles(dag, out, {twice}));
    CHECK_FALSE(f.no_op);
    CHECK(f.unread.count(read_through(dag, "table")));
    CHECK_FALSE(f.unread.count(read_through(dag, "in")));
    // The answer is cached: the same reference for the same closure.
    CHECK(&folds_of(folds, dag, out, 0, roles(dag, out, {twice})) == &f);
}

TEST_CASE("a stage whose inlined Funcs multiply their calls past the budget is not folded") {
    // zero(x) = top(x) - same(x), same(x) = top(x) * 1: they cancel once
    // same is inlined into zero and zero into out. top is a pyramid of 6
    // levels, each reading the last at 2 taps; inlined too, they bring 2 +
    // 4 + ... + 64 substitutions, past what a fold may cost the search, and
    // the cancellation is left to the lowered code.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Var x("x");
    std::vector<Halide::Func> pyramid;
    Halide::Func base("level0");
    base(x) = in(x);
    pyramid.push_back(base);
    for (int k = 1; k <= 6; ++k) {
        Halide::Func level("level" + std::to_string(k));
        level(x) = pyramid.back()(2 * x) + pyramid.back()(2 * x + 1);
        pyramid.push_back(level);
    }
    const Halide::Func &top = pyramid.back();
    Halide::Func same("same"), zero("zero"), out("out");
    same(x) = top(x) * 1.0f;
    zero(x) = top(x) - same(x);
    out(x) = in(x) + zero(x);
    in.set_estimates({{0, 64 * 64}});
    out.set_estimates({{0, 64}});
    FunctionDAG dag({out});
    InlinedFolds folds(dag);
    const int top_id = dag.node(top.name())->id;
    CHECK(folds_of(folds, dag, out, 0, roles(dag, out, {zero, same})).unread.count(top_id));
    std::vector<Halide::Func> everything = pyramid;
    everything.push_back(zero);
    everything.push_back(same);
    CHECK(folds_of(folds, dag, out, 0, roles(dag, out, everything)).unread.empty());
}
