// KernelGeometry on small pipelines whose boxes and regions can be worked
// out by hand: compact and strided thread tiles, a stencil member's halo, a
// downsampling member whose per-thread region depends on the tile's
// alignment, the storage extents that bound them, and where a tile's
// checks run.
#include "KernelGeometry.h"

#include "strata/costmodel/GpuSpec.h"

#include "SchedulingTestSupport.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::testing::id_of;

namespace {

// in → producer (3 taps in x, or x/2 when downsampling) → out, 1-D.
struct Chain {
    Halide::ImageParam in{Halide::Float(32), 1, "in"};
    Halide::Func producer{"producer"}, out{"out"};
    Halide::Var x{"x"};
    explicit Chain(bool downsample) {
        producer(x) = in(x) * 2;
        if (downsample) {
            out(x) = producer(x / 2);
        } else {
            out(x) = producer(x - 1) + producer(x) + producer(x + 1);
        }
        in.set_estimates({{-8, 4096 + 16}});
        out.set_estimates({{0, 4096}});
    }
};

// The output tiled with `tiling`, the producer placed per thread, the rest default.
Schedule thread_member_schedule(const FunctionDAG &dag, const GpuTiling &tiling) {
    Schedule s(dag);
    const int out = id_of(dag, "out");
    StageChoice c;
    c.tiling = tiling;
    s.set(out, FuncChoice::root({c}));
    s.set(id_of(dag, "producer"), FuncChoice::at(Placement::Thread, out, 0));
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    return s;
}

}  // namespace

TEST_CASE("a compact thread owns its serial points; a strided one owns copies of one point") {
    Chain chain(false);
    FunctionDAG dag({chain.out});
    const int out = id_of(dag, "out");
    for (bool compact : {true, false}) {
        const Schedule s = thread_member_schedule(dag, GpuTiling::uniform({4096}, {32}, {4}, compact));
        const KernelScope scope = KernelScope::collect(dag, s, out, 0);
        const KernelGeometry g(dag, s, scope);
        CHECK(g.block_box()[0].extent == 128);
        CHECK(g.thread_instances() == doctest::Approx(1024));
        if (compact) {
            CHECK(g.thread_box()[0].extent == 4);
            CHECK(g.thread_box_copies() == 1);
        } else {
            CHECK(g.thread_box()[0].extent == 1);
            CHECK(g.thread_box_copies() == 4);
        }
    }
}

TEST_CASE("a per-thread stencil producer covers the tile and its halo, and its storage is that constant") {
    Chain chain(false);
    FunctionDAG dag({chain.out});
    const int out = id_of(dag, "out"), producer = id_of(dag, "producer");
    const Schedule s = thread_member_schedule(dag, GpuTiling::uniform({4096}, {32}, {4}, true));
    const KernelScope scope = KernelScope::collect(dag, s, out, 0);
    REQUIRE(scope.role[producer] == Role::Thread);
    const KernelGeometry g(dag, s, scope);
    REQUIRE(g.thread_regions()[producer]);
    CHECK((*g.thread_regions()[producer])[0].extent == 4 + 2);
    CHECK(g.storage_extents(producer)[0].extent == 6);
    CHECK(g.thread_member_registers(producer) == doctest::Approx(6));
}

TEST_CASE("storage covers the largest per-thread region over the tile's alignments") {
    // producer(x / 2) over 4 points needs 2 values at even offsets, 3 at odd ones.
    Chain chain(true);
    FunctionDAG dag({chain.out});
    const int out = id_of(dag, "out"), producer = id_of(dag, "producer");
    const Schedule s = thread_member_schedule(dag, GpuTiling::uniform({4096}, {32}, {4}, true));
    const KernelScope scope = KernelScope::collect(dag, s, out, 0);
    const KernelGeometry g(dag, s, scope);
    CHECK((*g.thread_regions()[producer])[0].extent == 2);  // the interior thread starts at an even x
    CHECK(g.storage_extents(producer)[0].extent == 3);
}

TEST_CASE("a check on a fused block loop stays in every block; whole tiles count the points they recompute") {
    // A 4-D output: the writer fuses the block loops of its third and
    // fourth dimensions into grid z, which reaches the third through a
    // modulo that Halide does not partition on.
    Halide::ImageParam in(Halide::Float(32), 4, "in");
    Halide::Func out("out");
    Halide::Var c("c"), x("x"), y("y"), n("n");
    out(c, x, y, n) = in(c, x, y, n) * 2;
    in.set_estimates({{0, 32}, {0, 56}, {0, 10}, {0, 4}});
    out.set_estimates({{0, 32}, {0, 56}, {0, 10}, {0, 4}});
    FunctionDAG dag({out});
    const int id = id_of(dag, "out");
    auto geometry_of = [&](const GpuTiling &tiling) {
        Schedule s(dag);
        StageChoice choice;
        choice.tiling = tiling;
        s.set(id, FuncChoice::root({choice}));
        complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
        const KernelScope scope = KernelScope::collect(dag, s, id, 0);
        return KernelGeometry(dag, s, scope);
    };
    // y: 10 points in tiles of 4 serial points, checked in the last tile.
    // Every block checks, whether or not the estimate divides: a tile of 2
    // divides 10, but Halide cannot prove it of the symbolic extent.
    CHECK(geometry_of(GpuTiling::uniform({32, 56, 10, 4}, {32, 2, 1, 1}, {1, 1, 2, 1}, true)).guarded_fraction() ==
          1.0);
    GpuTiling tiling = GpuTiling::uniform({32, 56, 10, 4}, {32, 2, 1, 1}, {1, 1, 4, 1}, /*compact=*/true);
    CHECK(tiling.block_loop_fused(2));
    CHECK_FALSE(tiling.block_loop_fused(1));
    const KernelGeometry fused = geometry_of(tiling);
    CHECK(fused.guarded_copies() == 4);
    CHECK(fused.guarded_fraction() == 1.0);
    CHECK(fused.computed_points() == 32 * 56 * 10 * 4);
    // The same check on x (not fused): only the border blocks keep it.
    const KernelGeometry unfused = geometry_of(GpuTiling::uniform({32, 56, 10, 4}, {32, 1, 1, 1}, {1, 16, 1, 1}, true));
    CHECK(unfused.guarded_copies() == 16);
    CHECK(unfused.guarded_fraction() == doctest::Approx(1.0 / 4.0));
    // An imported ShiftInwards tile of 16 along x computes 4 whole tiles.
    GpuTiling shifted = GpuTiling::uniform({32, 56, 10, 4}, {32, 16, 1, 1}, {1, 1, 1, 1});
    shifted.dims[1].tail = TileTail::ShiftedInwards;
    CHECK(geometry_of(shifted).computed_points() == 32 * 64 * 10 * 4);
}

TEST_CASE("an unpartitioned tile runs its checks in every block, though its tiles divide the estimates") {
    // 128-point tiles over 4096: partitioned, every block is interior and
    // runs the unchecked copy; unpartitioned, each of a thread's 4 points
    // runs under its own check in every block (CodeSize.h).
    Chain chain(false);
    FunctionDAG dag({chain.out});
    const int out = id_of(dag, "out");
    for (bool partitioned : {true, false}) {
        INFO("partitioned: " << partitioned);
        Schedule s(dag);
        StageChoice choice;
        choice.tiling = GpuTiling::uniform({4096}, {32}, {4}, true);
        choice.tiling.partitioned = partitioned;
        s.set(out, FuncChoice::root({choice}));
        complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
        const KernelGeometry g(dag, s, KernelScope::collect(dag, s, out, 0));
        CHECK(g.guarded_copies() == (partitioned ? 1 : 4));
        CHECK(g.guarded_fraction() == (partitioned ? 0.0 : 1.0));
    }
}

TEST_CASE("a tile whose last one is shifted inwards runs no checks, and computes whole tiles") {
    // 4096 + 8 points in 128-point tiles: guarded, each of a thread's 4
    // points runs under its own check in the border block; shifted inwards,
    // no block checks anything and 33 whole tiles are computed.
    Chain chain(false);
    chain.out.set_estimates({{0, 4096 + 8}});
    chain.in.set_estimates({{-8, 4096 + 24}});
    FunctionDAG dag({chain.out});
    const int out = id_of(dag, "out");
    for (TileTail tail : {TileTail::Guarded, TileTail::ShiftedInwards}) {
        INFO("shifted: " << (tail == TileTail::ShiftedInwards));
        Schedule s(dag);
        StageChoice choice;
        choice.tiling = GpuTiling::uniform({4096 + 8}, {32}, {4}, true);
        choice.tiling.dims[0].tail = tail;
        s.set(out, FuncChoice::root({choice}));
        complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
        const KernelGeometry g(dag, s, KernelScope::collect(dag, s, out, 0));
        const bool shifted = tail == TileTail::ShiftedInwards;
        CHECK(g.guarded_copies() == (shifted ? 1 : 4));
        CHECK(g.guarded_fraction() == doctest::Approx(shifted ? 0.0 : 1.0 / 33.0));
        CHECK(g.computed_points() == (shifted ? 33 * 128 : 4096 + 8));
        // Block tiles: 32 full and a partial 8-point one; shifted, 33 full.
        const std::vector<KernelGeometry::TileClass> blocks = g.block_classes();
        double tiles = 0, points = 0;
        for (const auto &c : blocks) tiles += c.count, points += c.count * double(c.box[0].extent);
        CHECK(tiles == 33);
        CHECK(points == (shifted ? 33 * 128 : 4096 + 8));
    }
}

TEST_CASE("a thread's elements count two points a clamp pins to one element apart") {
    // out pads `in` (3 wide) to 4 by clamping; each thread owns 2 points.
    // The representative thread, in the upper block, covers x = 2 and 3,
    // which both read in(2): the code still loads it twice (clamp(2) and
    // clamp(3) are different expressions). One block lower, x = 0 and 1
    // read two elements.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func out("out");
    Halide::Var x("x");
    out(x) = in(Halide::clamp(x, 0, 2)) * 2;
    in.set_estimates({{0, 3}});
    out.set_estimates({{0, 4}});
    FunctionDAG dag({out});
    const int id = id_of(dag, "out");
    Schedule s(dag);
    StageChoice choice;
    choice.tiling = GpuTiling::uniform({4}, {1}, {2}, true);
    s.set(id, FuncChoice::root({choice}));
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    const KernelGeometry g(dag, s, KernelScope::collect(dag, s, id, 0));
    const int input = dag.node(in.name())->id;
    CHECK(g.thread_box()[0].min == 2);
    CHECK(points(*g.thread_regions()[input]) == 1);
    CHECK(g.thread_elements(input) == 2);
}

TEST_CASE("a strided thread's copies read apart where a clamp pins them together at the border") {
    // bgu's bilinear resize, 1-D: out(x) reads in(clamp(4x + 1)) from
    // x = -28, in 256-wide tiles of 16 threads by 16 strided copies. The
    // loop is under two tiles, so the representative thread (x = -20) lies
    // in the first block, where every copy's index clamps to 0; the code
    // still loads once per copy. A row's gain, `gain(y)`, is one element
    // for all of them.
    Halide::ImageParam in(Halide::Float(32), 2, "in"), gain(Halide::Float(32), 1, "gain");
    Halide::Func out("out");
    Halide::Var x("x"), y("y");
    out(x, y) = in(Halide::clamp(4 * x + 1, 0, 1535), y) * gain(y);
    in.set_estimates({{0, 1536}, {0, 8}});
    gain.set_estimates({{0, 8}});
    out.set_estimates({{-28, 440}, {0, 8}});
    FunctionDAG dag({out});
    const int id = id_of(dag, "out");
    Schedule s(dag);
    StageChoice choice;
    choice.tiling = GpuTiling::uniform({440, 8}, {16, 1}, {16, 1}, false);
    s.set(id, FuncChoice::root({choice}));
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    const KernelGeometry g(dag, s, KernelScope::collect(dag, s, id, 0));
    REQUIRE(g.thread_box_copies() == 16);
    CHECK(g.thread_box()[0].min == -20);
    CHECK((*g.thread_regions()[dag.node(in.name())->id])[0].min == 0);
    CHECK(g.distinct_thread_copies(dag.node(in.name())->id) == 16);
    CHECK(g.distinct_thread_copies(dag.node(gain.name())->id) == 1);
}

TEST_CASE("a member's footprint across a reduction of symbolic extent is reported; a constant one is not") {
    // out(x) = sum over k of operand(k, x): operand's buffer, computed per
    // thread of out's update, covers every k. With k over the input's
    // extent its size is symbolic; over a constant 16, it is not.
    for (bool symbolic : {true, false}) {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func operand("operand"), out("out");
        Halide::Var x("x"), k("k");
        operand(k, x) = in(k, x) * 2;
        Halide::RDom r(0, symbolic ? in.dim(0).extent() : Halide::Expr(16), "r");
        out(x) = 0.0f;
        out(x) += operand(r, x);
        in.set_estimates({{0, 16}, {0, 1024}});
        out.set_estimates({{0, 1024}});
        FunctionDAG dag({out});
        const int out_id = id_of(dag, "out"), operand_id = id_of(dag, "operand");
        Schedule s(dag);
        StageChoice s0, s1;
        s0.tiling = s1.tiling = GpuTiling::uniform({1024}, {64}, {1});
        s.set(out_id, FuncChoice::root({s0, s1}));
        s.set(operand_id, FuncChoice::at(Placement::Thread, out_id, 1));
        complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
        const MemberFootprint f = member_footprint(dag, s, operand_id, out_id, 1);
        INFO("symbolic extent: " << symbolic);
        CHECK(f.symbolic_reductions.size() == (symbolic ? 1u : 0u));
    }
}

TEST_CASE("a member read by a member over that member's own symbolic reduction is not bounded") {
    // out(x) = product(x) * 2 with product(x) = sum over k of operand(k, x)
    // (attention's probs · V). With product per thread of out, operand's
    // buffer would be computed with it and span every k: no constant size
    // when k runs over the input's extent, so operand cannot be a member of
    // out's kernel; over a constant 16 it can.
    for (bool symbolic : {true, false}) {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func operand("operand"), product("product"), out("out");
        Halide::Var x("x"), k("k");
        operand(k, x) = in(k, x) * 2;
        Halide::RDom r(0, symbolic ? in.dim(0).extent() : Halide::Expr(16), "r");
        product(x) = 0.0f;
        product(x) += operand(r, x);
        out(x) = product(x) * 2;
        in.set_estimates({{0, 16}, {0, 1024}});
        out.set_estimates({{0, 1024}});
        FunctionDAG dag({out});
        const int out_id = id_of(dag, "out"), product_id = id_of(dag, "product");
        Schedule s(dag);
        StageChoice tiled;
        tiled.tiling = GpuTiling::uniform({1024}, {64}, {1});
        s.set(out_id, FuncChoice::root({tiled}));
        s.set(product_id, FuncChoice::at(Placement::Thread, out_id, 0));
        complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
        const MemberFootprint f = member_footprint(dag, s, id_of(dag, "operand"), out_id, 0);
        INFO("symbolic extent: " << symbolic);
        CHECK((f.period == 0) == symbolic);
    }
}

namespace {

// `out` (1024 x 4) in rows of 64 threads, the Funcs named placed per
// thread, the rest default.
Schedule rows_of_64_threads(const FunctionDAG &dag, const std::vector<std::string> &thread_members) {
    const int out_id = id_of(dag, "out");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({1024, 4}, {64, 1}, {1, 1});
    s.set(out_id, FuncChoice::root({tiled}));
    for (const std::string &name : thread_members) {
        s.set(id_of(dag, name), FuncChoice::at(Placement::Thread, out_id, 0));
    }
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    return s;
}

}  // namespace

TEST_CASE("a member read at a constant index beside a moving one is not bounded") {
    // out(x, c) = level(x, c) / level(x, 3), interpolate's division by
    // alpha: per block, level covers channels from the block's own to 3.
    // Inside the estimates that is at most 4, but Halide must bound it for
    // any output position, and at c = 1000 it spans 998 channels.
    for (bool constant_channel : {true, false}) {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func level("level"), out("out");
        Halide::Var x("x"), c("c");
        level(x, c) = in(x, c) * 2;
        out(x, c) = level(x, c) / level(x, constant_channel ? Halide::Expr(3) : c);
        in.set_estimates({{0, 1024}, {0, 4}});
        out.set_estimates({{0, 1024}, {0, 4}});
        FunctionDAG dag({out});
        const int out_id = id_of(dag, "out");
        const Schedule s = rows_of_64_threads(dag, {});
        const MemberFootprint f = member_footprint(dag, s, id_of(dag, "level"), out_id, 0);
        INFO("constant channel: " << constant_channel);
        CHECK((f.period == 0) == constant_channel);
    }
}

TEST_CASE("a member read by an unbounded member only along its bounded dimensions is bounded") {
    // out(x, c) = level(x, c) / level(x, 3), level(x, c) = radius(x) *
    // in(x, c): level spans a varying number of channels per tile (no
    // constant size, Halide puts it on the heap), but radius, read at x
    // alone, is one tile of x wherever the tile runs (lens_blur's
    // worst_radius under Mullapudi2016's schedule, in registers).
    Halide::ImageParam in(Halide::Float(32), 2, "in"), r(Halide::Float(32), 1, "r");
    Halide::Func radius("radius"), level("level"), out("out");
    Halide::Var x("x"), c("c");
    radius(x) = r(x) * 2;
    level(x, c) = radius(x) * in(x, c);
    out(x, c) = level(x, c) / level(x, 3);
    in.set_estimates({{0, 1024}, {0, 4}});
    r.set_estimates({{0, 1024}});
    out.set_estimates({{0, 1024}, {0, 4}});
    FunctionDAG dag({out});
    const int out_id = id_of(dag, "out");
    const Schedule s = rows_of_64_threads(dag, {"level"});
    const MemberFootprint level_footprint = member_footprint(dag, s, id_of(dag, "level"), out_id, 0);
    CHECK(level_footprint.period == 0);
    CHECK(level_footprint.dim_periods == std::vector<int64_t>{1, 0});
    const MemberFootprint radius_footprint = member_footprint(dag, s, id_of(dag, "radius"), out_id, 0);
    CHECK(radius_footprint.period == 1);
    CHECK(radius_footprint.dim_periods == std::vector<int64_t>{1});
}

TEST_CASE("a member's footprint follows the kernel loops its index moves with, through member consumers too") {
    // out(c, x, y, n) = p(c, x, y, n) + w(x), p through a Block member q:
    // p's region moves with every loop of out, w's with x alone. A block
    // tiled over several batches (n, fused into grid z with y) may keep w
    // per block, but not p (depthwise_separable_conv's dw_padded, whose
    // storage bounds Halide left to checks inside the kernel).
    Halide::ImageParam in(Halide::Float(32), 4, "in"), weights(Halide::Float(32), 1, "weights");
    Halide::Func p("p"), q("q"), w("w"), out("out");
    Halide::Var c("c"), x("x"), y("y"), n("n");
    p(c, x, y, n) = in(c, x, y, n) * 2;
    q(c, x, y, n) = p(c, x, y, n) + p(c, x + 1, y, n);
    w(x) = weights(x) * 3;
    out(c, x, y, n) = q(c, x, y, n) + w(x);
    in.set_estimates({{0, 16}, {0, 65}, {0, 64}, {0, 4}});
    weights.set_estimates({{0, 64}});
    out.set_estimates({{0, 16}, {0, 64}, {0, 64}, {0, 4}});
    FunctionDAG dag({out});
    const int out_id = id_of(dag, "out");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({16, 64, 64, 4}, {16, 8, 1, 1}, {1, 1, 1, 4});
    s.set(out_id, FuncChoice::root({tiled}));
    s.set(id_of(dag, "q"), FuncChoice::at(Placement::Block, out_id, 0));
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    CHECK(member_footprint(dag, s, id_of(dag, "p"), out_id, 0).followed_loops == std::set<int>{0, 1, 2, 3});
    CHECK(member_footprint(dag, s, id_of(dag, "w"), out_id, 0).followed_loops == std::set<int>{1});
    CHECK(tiled.tiling.block_loop_fused(3));
}

namespace {

// out(x) = Σ m(x + r.x) · in(r.y) over r.x < `steps`, r.y < 3, with m per
// thread in registers (a thread computes `serial` points of out); `where`:
// the RDom has a where clause.
struct MemberReadAlongReduction {
    Halide::ImageParam in{Halide::Float(32), 1, "in"};
    Halide::Func m{"m"}, out{"out"};
    Halide::Var x{"x"};
    FunctionDAG dag;
    Schedule schedule;
    MemberReadAlongReduction(int steps, bool where, int serial = 4) : dag(define(steps, where)), schedule(dag) {
        const int out_id = id_of(dag, "out");
        StageChoice tile;
        tile.tiling = GpuTiling::uniform({4096}, {64}, {serial});
        schedule.set(out_id, FuncChoice::root({tile, tile}));
        schedule.set(id_of(dag, "m"), FuncChoice::at(Placement::Thread, out_id, 1));
        complete_with_defaults(schedule, strata::costmodel::GpuSpec::by_name("a100"));
    }
    FunctionDAG define(int steps, bool where) {
        Halide::RDom r(0, steps, 0, 3, "r");
        if (where) r.where(r.x != r.y);
        m(x) = in(x) * 2.0f;
        out(x) = 0.0f;
        out(x) += m(x + r.x) * in(r.y);
        in.set_estimates({{0, 4096 + steps}});
        out.set_estimates({{0, 4096}});
        return FunctionDAG({out});
    }
    std::vector<int> unrolled() const {
        const KernelScope scope = KernelScope::collect(dag, schedule, id_of(dag, "out"), 1);
        const KernelGeometry g(dag, schedule, scope);
        return g.unrolled_rvars(*dag.nodes()[id_of(dag, "out")]->stages[1]);
    }
};

}  // namespace

TEST_CASE("a reduction loop along which a stage indexes a Thread member is unrolled while the code stays short") {
    // Loops innermost first: r.x (0), r.y (1), x (2). r.x moves m's index,
    // r.y does not; neither is a tap (r.x alone exceeds the taps' limit).
    // Unrolled, r.x leaves a constant index into m at every step: m stays
    // in registers. 4 points × 20 steps is short; 4 × 40 is not, and a
    // predicated update keeps a store at every step it would unroll. One
    // point over 60 steps keeps 60 values of m live, over 100 steps 100:
    // more than kMaxUnrolledMemberRegisters.
    CHECK(MemberReadAlongReduction(20, false).unrolled() == std::vector<int>{0});
    CHECK(MemberReadAlongReduction(40, false).unrolled().empty());
    CHECK(MemberReadAlongReduction(20, true).unrolled().empty());
    CHECK(MemberReadAlongReduction(60, false, 1).unrolled() == std::vector<int>{0});
    CHECK(MemberReadAlongReduction(100, false, 1).unrolled().empty());
}

TEST_CASE("a predicated update keeps its taps rolled: unrolled, each step loads and stores its accumulator") {
    // 2 × 3 steps are taps, unrolled without a where clause. With one,
    // every unrolled step is a branch of its own, and the compiled code
    // keeps the accumulator in global memory across them (fuzz seed 3171:
    // a load and a store per point where rolled, it stores once per pass).
    CHECK(MemberReadAlongReduction(2, false).unrolled() == std::vector<int>{0, 1});
    CHECK(MemberReadAlongReduction(2, true).unrolled().empty());
}

TEST_CASE("which Thread members a loop indexes is found through a deep chain of inlined stencils") {
    // out(x) = Σ over r of s16(x + r.x) · in(r.y), s_k(x) = s_{k-1}(x - 1) +
    // s_{k-1}(x) + s_{k-1}(x + 1) inlined, s0 = m per thread: 3^16 paths
    // from out to m, but only 33 points of each s_k between two steps of
    // r.x. r.y moves no index into m.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func m("m"), out("out");
    Halide::Var x("x");
    Halide::RDom r(0, 20, 0, 3, "r");
    m(x) = in(x) * 2.0f;
    Halide::Func previous = m;
    std::vector<Halide::Func> chain;
    for (int k = 1; k <= 16; ++k) {
        Halide::Func s("s" + std::to_string(k));
        s(x) = previous(x - 1) + previous(x) + previous(x + 1);
        chain.push_back(s);
        previous = s;
    }
    out(x) = 0.0f;
    out(x) += previous(x + r.x) * in(r.y);
    in.set_estimates({{-16, 4096 + 40}});
    out.set_estimates({{0, 4096}});
    FunctionDAG dag({out});
    Schedule s(dag);
    const int out_id = id_of(dag, "out");
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({4096}, {64}, {1});
    s.set(out_id, FuncChoice::root({tile, tile}));
    s.set(id_of(dag, "m"), FuncChoice::at(Placement::Thread, out_id, 1));
    for (const Halide::Func &f : chain) s.set(id_of(dag, f.name()), FuncChoice::inlined());
    complete_with_defaults(s, strata::costmodel::GpuSpec::by_name("a100"));
    const KernelScope scope = KernelScope::collect(dag, s, out_id, 1);
    const KernelGeometry g(dag, s, scope);
    const Stage &update = *dag.nodes()[out_id]->stages[1];
    CHECK(g.thread_members_indexed_along(update, 0) == std::set<int>{id_of(dag, "m")});
    CHECK(g.thread_members_indexed_along(update, 1).empty());
}
