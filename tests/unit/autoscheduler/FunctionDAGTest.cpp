#include "FunctionDAG.h"

#include <doctest/doctest.h>

using Halide::cast;
using Halide::Float;
using Halide::Func;
using Halide::ImageParam;
using Halide::Int;
using Halide::Param;
using Halide::RDom;
using Halide::UInt;
using Halide::Var;
using namespace strata::autoscheduler;

namespace {

// in → blur_x (3-tap) → blur_y (3-tap) → out, 1000×800 estimated.
struct Blur {
    ImageParam in{Float(32), 2, "in"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"};
    Var x{"x"}, y{"y"};
    Blur() {
        blur_x(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
        blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
        in.set_estimates({{0, 1002}, {0, 802}});
        blur_y.set_estimates({{1, 1000}, {1, 800}});
    }
};

}  // namespace

TEST_CASE("nodes come in realization order with inputs first, and root regions grow by the stencils") {
    Blur p;
    FunctionDAG dag({p.blur_y});
    // An ImageParam is read through a wrapper Func that Halide makes for it.
    REQUIRE(dag.nodes().size() == 4);
    CHECK(dag.nodes()[0]->is_input());
    CHECK(dag.nodes()[1]->name.rfind("in_im", 0) == 0);
    CHECK(dag.nodes()[2]->name == p.blur_x.name());
    CHECK(dag.nodes()[3]->name == p.blur_y.name());
    const Node &bx = *dag.node(p.blur_x.name());
    CHECK(bx.root_region[0].min == 1);
    CHECK(bx.root_region[0].extent == 1000);
    CHECK(bx.root_region[1].min == 0);
    CHECK(bx.root_region[1].extent == 802);
    const Node &in = *dag.node("in");
    CHECK(in.root_region[0].min == 0);
    CHECK(in.root_region[0].extent == 1002);
    CHECK(dag.node(p.blur_y.name())->is_output);
    CHECK(bx.inlinable);
}

TEST_CASE("edges carry footprints as functions of the consumer's loop bounds") {
    Blur p;
    FunctionDAG dag({p.blur_y});
    const Stage &consumer = *dag.node(p.blur_y.name())->stages[0];
    REQUIRE(consumer.producers.size() == 1);
    const Edge &e = *consumer.producers[0];
    CHECK(e.producer->name == p.blur_x.name());
    CHECK(e.calls == 3);
    // A 32×8 tile at (100, 200) reads rows 199..208 of blur_x.
    Region fp = e.footprint({Span{100, 32}, Span{200, 8}});
    CHECK(fp[0].min == 100);
    CHECK(fp[0].extent == 32);
    CHECK(fp[1].min == 199);
    CHECK(fp[1].extent == 10);
    // Call sites keep their index expressions (three rows).
    CHECK(consumer.accesses.size() == 3);
}

TEST_CASE("update stages: RVar loops, bounds from the RDom, associativity") {
    ImageParam a(Float(32), 2, "a"), b(Float(32), 2, "b");
    Func c("c");
    Var i("i"), j("j");
    RDom k(0, 256, "k");
    c(i, j) = 0.0f;
    c(i, j) += a(k, j) * b(i, k);
    a.set_estimates({{0, 256}, {0, 512}});
    b.set_estimates({{0, 128}, {0, 256}});
    c.set_estimates({{0, 128}, {0, 512}});
    FunctionDAG dag({c});
    const Node &n = *dag.node(c.name());
    REQUIRE(n.stages.size() == 2);
    const Stage &update = *n.stages[1];
    CHECK(update.is_update());
    CHECK(update.associative);
    int rvars = 0;
    for (const Loop &l : update.loops) rvars += l.is_rvar;
    CHECK(rvars == 1);
    const std::vector<Span> bounds = update.loop_bounds(n.root_region);
    int64_t points = 1;
    for (const Span &s : bounds) points *= s.extent;
    CHECK(points == 128LL * 512 * 256);
    CHECK(dag.node("a")->root_region[0].extent == 256);
    CHECK_FALSE(n.inlinable);
}

TEST_CASE("a scan along an RVar argument is not mistaken for a user schedule") {
    // Its updates' loop nests list neither the RVar argument twice nor the
    // parameter that pins the first row.
    ImageParam in(Float(32), 2, "in");
    Func scan("scan"), out("out");
    Var x("x"), y("y");
    RDom r(1, 99, "r");
    scan(x, y) = in(x, y);
    scan(x, in.dim(1).min()) = in(x, in.dim(1).min()) * 0.5f;
    scan(x, r) = scan(x, r - 1) + in(x, r);
    out(x, y) = scan(x, y) * 2.0f;
    in.set_estimates({{0, 64}, {0, 100}});
    out.set_estimates({{0, 64}, {0, 100}});
    FunctionDAG unscheduled({out});
    CHECK_FALSE(unscheduled.node("scan")->user_scheduled);

    Var xo("xo"), xi("xi");
    scan.update().split(x, xo, xi, 8);
    FunctionDAG split({out});
    CHECK(split.node("scan")->user_scheduled);
}

TEST_CASE("a histogram's update stores to data-dependent places") {
    ImageParam in(UInt(8), 2, "in");
    Func hist("hist");
    Var b("b");
    RDom r(0, 64, 0, 64, "r");
    hist(b) = 0;
    hist(cast<int>(in(r.x, r.y))) += 1;
    in.set_estimates({{0, 64}, {0, 64}});
    hist.set_estimates({{0, 256}});
    FunctionDAG dag({hist});
    CHECK(dag.node(hist.name())->stages[1]->data_dependent_store);
    CHECK(dag.node(hist.name())->stages[1]->reads_own_point);
    CHECK(dag.node(hist.name())->stages[1]->store_reads_data);
    CHECK(dag.node(hist.name())->stages[1]->chain_loop == -1);  // its bins are not a chain
}

TEST_CASE("a where clause's share of the update's points: all of them counted, or a grid of samples") {
    // sum(y) += in(r.x, y) over r.x < y: a strict lower triangle. Over 8
    // rows every point is evaluated (28 of 64); over 1,000 a grid of
    // samples comes within a few percent of 999 * 1000 / 2 of 10^6.
    for (int n : {8, 1000}) {
        INFO("rows: " << n);
        ImageParam in(Float(32), 2, "in");
        Func sum("sum");
        Var y("y");
        RDom r(0, n, "r");
        r.where(r.x < y);
        sum(y) = 0.0f;
        sum(y) += in(r.x, y);
        in.set_estimates({{0, n}, {0, n}});
        sum.set_estimates({{0, n}});
        FunctionDAG dag({sum});
        const Stage &update = *dag.node(sum.name())->stages[1];
        CHECK(update.predicated);
        const double exact = double(n - 1) * n / 2 / (double(n) * n);
        CHECK(update.predicate_density == doctest::Approx(exact).epsilon(n == 8 ? 1e-12 : 0.02));
        CHECK(dag.node(sum.name())->stages[0]->predicate_density == 1);
    }
}

TEST_CASE("an update's reads of its own Func: at the point it stores, and elsewhere") {
    // Edge row, forward scan, then a backward pass that reads both the
    // point it stores and the one after it (iir_blur's symmetric filter).
    ImageParam in(Float(32), 2, "in");
    Func f("f");
    Var x("x"), y("y");
    RDom forward(1, 99, "forward"), backward(0, 99, "backward");
    f(x, y) = Halide::undef<float>();
    f(0, y) = in(0, y);
    f(forward, y) = f(forward - 1, y) * 0.5f + in(forward, y);
    const Halide::Expr i = 98 - backward;
    f(i, y) = f(i + 1, y) * 0.5f + f(i, y) * 0.5f + f(i + 1, y);
    in.set_estimates({{0, 100}, {0, 64}});
    f.set_estimates({{0, 100}, {0, 64}});
    FunctionDAG dag({f});
    const Node &n = *dag.node(f.name());
    REQUIRE(n.stages.size() == 4);
    CHECK_FALSE(n.stages[1]->reads_own_point);
    CHECK(n.stages[1]->own_reads_elsewhere == 0);
    CHECK_FALSE(n.stages[2]->reads_own_point);
    CHECK(n.stages[2]->own_reads_elsewhere == 1);
    CHECK(n.stages[3]->reads_own_point);
    CHECK(n.stages[3]->own_reads_elsewhere == 1);  // f(i + 1, y) twice is one load
    // The scans chain their steps along their RDom; the edge stage does not.
    CHECK(n.stages[1]->chain_loop == -1);
    for (int k : {2, 3}) {
        const Stage &scan = *n.stages[k];
        REQUIRE(scan.chain_loop >= 0);
        CHECK(scan.loops[size_t(scan.chain_loop)].is_rvar);
    }
    // A scan stores where its loop point says, not where loaded data does.
    CHECK(n.stages[3]->data_dependent_store);
    CHECK_FALSE(n.stages[3]->store_reads_data);
}

TEST_CASE("a Func with updates covers what they store and read, not only what its consumers read") {
    // A prefix sum over rows of 500 (fuzz seed 3332's s6_scan) read over
    // 200 columns: Halide initialises and scans the whole row, and the
    // pure stage's blocks cover it (priced over the 200 columns, the kernel
    // launched half the blocks Halide did).
    ImageParam in(Float(32), 2, "in");
    Func scan("scan"), out("out");
    Var x("x"), y("y");
    RDom r(1, 499, "r");
    scan(x, y) = in(x, y);
    scan(r, y) = scan(r - 1, y) + in(r, y);
    out(x, y) = scan(x + 10, y) * 2.0f;
    in.set_estimates({{0, 500}, {0, 64}});
    out.set_estimates({{0, 200}, {0, 64}});
    FunctionDAG dag({out});
    const Node &n = *dag.node(scan.name());
    CHECK(n.root_region[0].min == 0);
    CHECK(n.root_region[0].extent == 500);
    CHECK(n.root_region[1].extent == 64);  // the update's pure loop follows the consumers
    CHECK(n.stages[0]->loop_bounds(n.root_region)[0].extent == 500);
    // An output's region is its buffer, whatever its updates reach.
    Func total("total");
    RDom all(0, 300, "all");
    total(x) = 0.0f;
    total(all) = total(all) + in(all, 0);
    total.set_estimates({{0, 100}});
    FunctionDAG outputs({total});
    CHECK(outputs.node(total.name())->root_region[0].extent == 100);
}

TEST_CASE("calls at one address are one load, data-dependent ones too; gathers at different places each count") {
    ImageParam in(Float(32), 1, "in");
    ImageParam index(Int(32), 1, "index");
    Func g("g"), pair("pair"), lookup("lookup"), twice("twice");
    Var x("x");
    g(x) = in(x) * 2.0f;
    // Both tuple elements and the select read g(x): after Halide's common
    // subexpression elimination, one load of g per point.
    pair(x) = {g(x) + 1.0f, Halide::select(g(x) > 0.0f, g(x), 0.0f)};
    // Two gathers at different data-dependent places: two loads.
    lookup(x) = g(index(x)) + g(index(x + 1));
    // One gather written twice: the same Expr, one load.
    twice(x) = g(index(x)) * g(index(x));
    in.set_estimates({{0, 100}});
    index.set_estimates({{0, 101}});
    pair.set_estimates({{0, 100}});
    lookup.set_estimates({{0, 100}});
    twice.set_estimates({{0, 100}});
    FunctionDAG dag({pair, lookup, twice});
    auto loads_of_g = [&](const Func &f) {
        int loads = 0;
        for (const Access &a : dag.node(f.name())->stages[0]->accesses) {
            if (a.callee->name == g.name()) loads += a.count;
        }
        return loads;
    };
    CHECK(loads_of_g(pair) == 1);
    CHECK(loads_of_g(lookup) == 2);
    CHECK(loads_of_g(twice) == 1);
}

TEST_CASE("calls Halide's simplifier removes load nothing, and a Func read only through them is unread") {
    ImageParam in(Int(32), 1, "in");
    Func f("f"), taps("taps"), never("never"), feeds_never("feeds_never"), gone("gone");
    Var x("x");
    f(x) = in(x) + 1;
    // A stencil with a tap of weight zero: Halide folds 0 * f(x + 1) away,
    // so one load of f per point, and f's footprint is one point wide.
    taps(x) = 3 * f(x) + 0 * f(x + 1);
    // never is read only as never(x) - never(x), which folds to zero: no
    // code is built for it, nor for feeds_never, read only by never.
    feeds_never(x) = in(x) * 2;
    never(x) = feeds_never(x) + 1;
    gone(x) = f(x) + (never(x) - never(x));
    in.set_estimates({{0, 101}});
    taps.set_estimates({{0, 100}});
    gone.set_estimates({{0, 100}});
    FunctionDAG dag({taps, gone});
    const Stage &taps_stage = *dag.node(taps.name())->stages[0];
    REQUIRE(taps_stage.accesses.size() == 1);
    CHECK(taps_stage.accesses[0].callee->name == f.name());
    CHECK(taps_stage.accesses[0].index[0]->evaluate(std::vector<int64_t>{7}.data()) == 7);
    const Stage &gone_stage = *dag.node(gone.name())->stages[0];
    REQUIRE(gone_stage.accesses.size() == 1);
    CHECK(gone_stage.accesses[0].callee->name == f.name());
    CHECK(dag.node(never.name())->consumers.empty());
    CHECK(dag.node(never.name())->unread);
    CHECK(dag.node(feeds_never.name())->unread);
    CHECK_FALSE(dag.node(f.name())->unread);
    CHECK_FALSE(dag.node(gone.name())->unread);
    // Halide infers bounds before it simplifies: f is computed where the
    // folded tap would have read it too.
    CHECK(dag.node(f.name())->root_region[0].min == 0);
    CHECK(dag.node(f.name())->root_region[0].extent == 101);
}

TEST_CASE("indices through lets and compiler hints are evaluated, not taken for data-dependent ones") {
    ImageParam in(Float(32), 2, "in");
    Func shifted("shifted");
    Var x("x"), y("y");
    // repeat_edge wraps its clamped coordinates in likely(); a let names
    // an index used by two calls.
    Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    Halide::Expr column = x + 1;
    shifted(x, y) = Halide::Internal::Let::make("column", column,
                                                clamped(Halide::Internal::Variable::make(Halide::Int(32), "column"), y) +
                                                    clamped(Halide::Internal::Variable::make(Halide::Int(32), "column"), y + 1));
    in.set_estimates({{0, 64}, {0, 32}});
    shifted.set_estimates({{0, 64}, {0, 32}});
    FunctionDAG dag({shifted});
    const Stage &stage = *dag.node(shifted.name())->stages[0];
    REQUIRE(stage.accesses.size() == 2);
    for (const Access &a : stage.accesses) {
        for (const auto &index : a.index) CHECK(index.has_value());
    }
    const Node &wrapper = *dag.node(clamped.name());
    for (const Access &a : wrapper.stages[0]->accesses) {
        for (const auto &index : a.index) CHECK(index.has_value());
    }
}

TEST_CASE("missing estimates are errors that name the Func or parameter and the dimension") {
    SUBCASE("output") {
        Blur p;
        p.blur_y.function().schedule().estimates().clear();
        p.blur_y.set_estimate(p.x, 0, 100);
        CHECK_THROWS_WITH(FunctionDAG({p.blur_y}),
                          doctest::Contains(("output Func '" + p.blur_y.name() + "' has no estimate for dimension 1 (y)").c_str()));
    }
    SUBCASE("input buffer") {
        // Read at data-dependent places: its region cannot be inferred.
        ImageParam in(Float(32), 1, "unestimated"), index(Int(32), 1, "index");
        Func f("f");
        Var x("x");
        f(x) = in(index(x)) * 2;
        f.set_estimates({{0, 10}});
        index.set_estimates({{0, 10}});
        CHECK_THROWS_WITH(FunctionDAG({f}), doctest::Contains("input buffer 'unestimated' is read at data-dependent"));
    }
    SUBCASE("scalar parameter in a bound") {
        Param<int> width("width");
        Func f("f");
        Var x("x");
        RDom r(0, width, "r");
        f(x) = 0;
        f(x) += r;
        f.set_estimates({{0, 10}});
        CHECK_THROWS_WITH(FunctionDAG({f}), doctest::Contains("scalar parameter 'width' has no estimate"));
    }
}

TEST_CASE("scalar outputs and several outputs") {
    ImageParam in(Float(32), 1, "in");
    Func total("total"), doubled("doubled");
    Var x("x");
    RDom r(0, 1000, "r");
    total() = 0.0f;
    total() += in(r);
    doubled(x) = in(x) * 2;
    in.set_estimates({{0, 1000}});
    doubled.set_estimates({{0, 1000}});
    FunctionDAG dag({total, doubled});
    CHECK(dag.node(total.name())->dimensions == 0);
    CHECK(dag.node(total.name())->is_output);
    CHECK(dag.node(doubled.name())->is_output);
    CHECK(dag.node(total.name())->root_points() == 1);
}

TEST_CASE("extern stages are opaque root kernels that Funcs they read cannot be inlined into") {
    ImageParam in(Float(32), 1, "in");
    Func pre("pre"), ext("ext"), post("post");
    Var x("x");
    pre(x) = in(x) + 1;
    ext.define_extern("some_extern", {pre}, Float(32), 1);
    post(x) = ext(x) * 2;
    in.set_estimates({{0, 100}});
    post.set_estimates({{0, 100}});
    FunctionDAG dag({post});
    CHECK(dag.node(ext.name())->is_extern);
    CHECK_FALSE(dag.node(ext.name())->inlinable);
    CHECK_FALSE(dag.node(pre.name())->inlinable);
}
