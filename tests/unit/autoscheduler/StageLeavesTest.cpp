// StageLeaves: a stage's loads through the Funcs a kernel inlines into it,
// composed once per stage and set of inlined Funcs and read back by every
// kernel that inlines the same Funcs there.
#include "StageLeaves.h"

#include "InlineChainPipeline.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace strata::autoscheduler;

namespace {

// The out stage of InlineChainPipeline, with the leaves of a search.
struct OutStage {
    strata::testing::InlineChainPipeline p;
    FunctionDAG dag{{p.out}};
    InlinedFolds folds{dag};
    StageLeaves leaves{folds};
    const Node *out = dag.node(p.out.name());
    const Stage &stage = *out->stages[0];

    // The leaves of the stage in a kernel of out that inlines `inlined` and
    // computes `members` per thread.
    const std::vector<LeafAccess> &with(const std::vector<Halide::Func> &inlined,
                                        const std::vector<Halide::Func> &members = {}) {
        NodeMap<Role> roles;
        roles.slot(out->id) = Role::Kernel;
        for (const Halide::Func &f : inlined) roles.slot(dag.node(f.name())->id) = Role::Inlined;
        for (const Halide::Func &f : members) roles.slot(dag.node(f.name())->id) = Role::Thread;
        return leaves.of(stage, kAllValues, roles, out->id);
    }
    size_t loads_of(const std::vector<LeafAccess> &of, const Halide::Func &callee) const {
        const Node *node = dag.node(callee.name());
        return size_t(std::count_if(of.begin(), of.end(), [&](const LeafAccess &l) { return l.callee == node; }));
    }
};

}  // namespace

TEST_CASE("leaves follow the inlined Funcs down to what the kernel stores or reads") {
    OutStage s;
    // Nothing inlined: one load of b and one of c.
    const std::vector<LeafAccess> &own = s.with({}, {s.p.b, s.p.c});
    CHECK(own.size() == 2);
    CHECK(s.loads_of(own, s.p.b) == 1);

    // a, b and c inlined: b's two taps of a reach the input at x and x + 1,
    // and c's read of the input at x is the same load as a's first tap.
    const std::vector<LeafAccess> &through = s.with({s.p.a, s.p.b, s.p.c});
    REQUIRE(through.size() == 2);
    CHECK(through.front().callee == through.back().callee);
    CHECK(through.front().chain.size() == 3);  // out -> b -> a -> the input
    CHECK(through.front().text.key != through.back().text.key);
}

TEST_CASE("kernels that inline the same Funcs into a stage read one composition; other sets compose their own") {
    OutStage s;
    // The roles differ in a Func the stage does not reach through inlining
    // (c per thread, or c stored): the same inlined set, the same leaves.
    const std::vector<LeafAccess> &first = s.with({s.p.a, s.p.b}, {s.p.c});
    const std::vector<LeafAccess> &again = s.with({s.p.a, s.p.b});
    CHECK(&first == &again);

    // With b stored, a is no longer reached: b is loaded instead.
    const std::vector<LeafAccess> &stored_b = s.with({s.p.a}, {s.p.b});
    CHECK(&stored_b != &first);
    CHECK(s.loads_of(stored_b, s.p.b) == 1);
    CHECK(s.loads_of(first, s.p.b) == 0);
}

TEST_CASE("a load through an inlined tuple Func reads only the elements of the values read") {
    // pair holds both of stored's elements; out reads pair's first value
    // only, so the load of stored reads its first element's 4 bytes, not
    // the 12 of both (fuzz seed 3257: an argmax read through the inlined
    // pair that holds its index and value).
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func stored("stored"), pair("pair"), out("out");
    Halide::Var x("x");
    stored(x) = {in(x), Halide::cast<double>(in(x))};
    pair(x) = {stored(x)[0], stored(x)[1]};
    out(x) = pair(x)[0] + 1.0f;
    in.set_estimates({{0, 64}});
    out.set_estimates({{0, 64}});
    FunctionDAG dag({out});
    InlinedFolds folds(dag);
    StageLeaves leaves(folds);
    const Node *out_node = dag.node(out.name());
    NodeMap<Role> roles;
    roles.slot(out_node->id) = Role::Kernel;
    roles.slot(dag.node(pair.name())->id) = Role::Inlined;
    const std::vector<LeafAccess> &of = leaves.of(*out_node->stages[0], kAllValues, roles, out_node->id);
    REQUIRE(of.size() == 1);
    CHECK(of.front().callee == dag.node(stored.name()));
    CHECK(of.front().bytes() == 4);
    CHECK(of.front().chain.back()->bytes_for(kAllValues) == 12);  // the site reads both elements for pair's two values
}
