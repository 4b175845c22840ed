// The featurizer on small pipelines whose features can be worked out by
// hand: coalesced against transposed reads, shared-memory staging, inlined
// recompute, the launch shape, and what per-thread code loads (rolled
// reductions, data-dependent indices reached by two paths, taps that meet
// through different clamps).
#include "Featurizer.h"

#include "ZeroedUpdatePipeline.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::costmodel::Feature;
using strata::costmodel::GpuSpec;
using strata::costmodel::index;

namespace {

constexpr int kSize = 1024;

// out(x, y) = in(x, y) or in(y, x), both float32 over kSize².
struct Copy {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func out{"out"};
    Halide::Var x{"x"}, y{"y"};
    explicit Copy(bool transposed) {
        out(x, y) = transposed ? in(y, x) : in(x, y);
        in.set_estimates({{0, kSize}, {0, kSize}});
        out.set_estimates({{0, kSize}, {0, kSize}});
    }
};

double feature(const ScheduleFeaturization &f, const std::string &stage_prefix, Feature which) {
    for (const auto &s : f.stages) {
        if (s.name.rfind(stage_prefix, 0) == 0) return s.features[index(which)];
    }
    FAIL("no stage " << stage_prefix);
    return 0;
}

// `which` summed over every stage whose name starts with `stage_prefix`
// (a Func's pure stage and its updates).
double feature_over_stages(const ScheduleFeaturization &f, const std::string &stage_prefix, Feature which) {
    double total = 0;
    for (const auto &s : f.stages) {
        if (s.name.rfind(stage_prefix, 0) == 0) total += s.features[index(which)];
    }
    return total;
}

ScheduleFeaturization featurize_root(const FunctionDAG &dag, const GpuTiling &tiling) {
    Schedule s(dag);
    for (const Node *n : dag.funcs()) {
        if (n->is_output) {
            StageChoice c;
            c.tiling = tiling;
            s.set(n->id, FuncChoice::root(std::vector<StageChoice>(n->stages.size(), c)));
        }
    }
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    return Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
}

// The outputs at root over `tiling`, every other Func inlined into them.
ScheduleFeaturization featurize_all_inlined(const FunctionDAG &dag, const GpuTiling &tiling) {
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = tiling;
    for (const Node *n : dag.funcs()) s.set(n->id, n->is_output ? FuncChoice::root({tile}) : FuncChoice::inlined());
    return Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
}

// `out` at root over `tiling`, `member` computed per thread in its kernel.
ScheduleFeaturization featurize_thread_member(const FunctionDAG &dag, const Halide::Func &out,
                                              const Halide::Func &member, const GpuTiling &tiling) {
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = tiling;
    const int out_id = dag.node(out.name())->id;
    s.set(out_id, FuncChoice::root({tile}));
    s.set(dag.node(member.name())->id, FuncChoice::at(Placement::Thread, out_id, 0));
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    return Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
}

}  // namespace

TEST_CASE("a transposed read moves 8x the sectors of a coalesced one") {
    const GpuTiling tiling = GpuTiling::uniform({kSize, kSize}, {32, 8}, {1, 1});
    Copy copy(false), transpose(true);
    FunctionDAG copy_dag({copy.out}), transpose_dag({transpose.out});
    const auto a = featurize_root(copy_dag, tiling), b = featurize_root(transpose_dag, tiling);
    const double points = double(kSize) * kSize;
    // Coalesced: 32 lanes × 4 bytes = 4 sectors per warp, so points / 8.
    CHECK(feature(a, copy.out.name(), Feature::GlobalLoadSectors) == doctest::Approx(points / 8));
    // Transposed: each lane in its own sector.
    CHECK(feature(b, transpose.out.name(), Feature::GlobalLoadSectors) == doctest::Approx(points));
    // Stores are coalesced in both.
    CHECK(feature(a, copy.out.name(), Feature::GlobalStoreSectors) == doctest::Approx(points / 8));
    CHECK(feature(b, transpose.out.name(), Feature::GlobalStoreSectors) == doctest::Approx(points / 8));
    // The same bytes are useful either way, and DRAM sees each input byte once.
    CHECK(feature(a, copy.out.name(), Feature::GlobalLoadBytesUseful) ==
          feature(b, transpose.out.name(), Feature::GlobalLoadBytesUseful));
}

TEST_CASE("launch shape: blocks, threads, waves and occupancy follow the tiling") {
    Copy copy(false);
    FunctionDAG dag({copy.out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize, kSize}, {64, 4}, {1, 2}));
    const std::string out = copy.out.name();
    CHECK(feature(f, out, Feature::ThreadsPerBlock) == 256);
    CHECK(feature(f, out, Feature::Blocks) == (kSize / 64) * (kSize / 8));
    CHECK(feature(f, out, Feature::SerialIterationsPerThread) == 2);
    CHECK(feature(f, out, Feature::KernelLaunches) == 1);
    CHECK(feature(f, out, Feature::ActiveThreadFraction) == doctest::Approx(1.0));
    CHECK(feature(f, out, Feature::Occupancy) > 0);
    const GpuSpec &a100 = GpuSpec::by_name("a100");
    const double waves = feature(f, out, Feature::Waves);
    CHECK(waves == doctest::Approx(feature(f, out, Feature::Blocks) /
                                   (a100.sm_count * feature(f, out, Feature::ResidentBlocksPerSm))));
}

TEST_CASE("a producer staged per block costs shared memory and barriers, not global traffic") {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func blur_x("blur_x"), blur_y("blur_y");
    Halide::Var x("x"), y("y");
    blur_x(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
    in.set_estimates({{0, kSize + 2}, {0, kSize + 2}});
    blur_y.set_estimates({{1, kSize}, {1, kSize}});
    FunctionDAG dag({blur_y});
    const GpuSpec &a100 = GpuSpec::by_name("a100");
    const Node &bx = *dag.node(blur_x.name()), &by = *dag.node(blur_y.name());

    Schedule staged(dag), separate(dag);
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({kSize, kSize}, {32, 8}, {1, 1});
    for (Schedule *s : {&staged, &separate}) s->set(by.id, FuncChoice::root({tile}));
    staged.set(bx.id, FuncChoice::at(Placement::Block, by.id, 0));
    StageChoice bx_tile;
    bx_tile.tiling = GpuTiling::uniform({kSize, kSize + 2}, {32, 8}, {1, 1});
    separate.set(bx.id, FuncChoice::root({bx_tile}));
    complete_with_defaults(staged, a100);
    complete_with_defaults(separate, a100);
    Featurizer featurizer(dag, a100);
    const auto f_staged = featurizer.featurize(staged), f_separate = featurizer.featurize(separate);

    CHECK(f_staged.kernels == 1);
    CHECK(f_separate.kernels == 2);
    // The tile of blur_x a 32×8 block of blur_y needs: 32 × 10 floats.
    CHECK(feature(f_staged, by.name, Feature::SharedBytesPerBlock) == 32 * 10 * 4);
    CHECK(feature(f_staged, by.name, Feature::BarriersPerBlock) == 1);
    CHECK(feature(f_staged, by.name, Feature::SharedLoadRequests) > 0);
    // Row reads of the staged tile: no bank conflicts.
    CHECK(feature(f_staged, by.name, Feature::SharedBankConflictWays) == doctest::Approx(1.0));
    // blur_x recomputes its halo rows per block: 10 rows for every 8.
    CHECK(feature(f_staged, bx.name, Feature::RecomputeRatio) == doctest::Approx(10.0 / 8.0).epsilon(0.01));
    CHECK(feature(f_separate, bx.name, Feature::RecomputeRatio) == doctest::Approx(1.0));
    // The separate kernel writes blur_x to DRAM and reads it back.
    CHECK(feature(f_separate, bx.name, Feature::GlobalStoreSectors) > 0);
}

TEST_CASE("inlining a producer folds its arithmetic into every call") {
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func p("p"), c("c");
    Halide::Var x("x");
    p(x) = in(x) * 3 + 1;                  // 1 mul, 1 add
    c(x) = p(x - 1) + p(x) + p(x + 1);     // 2 adds, 2 index adds, 3 calls of p
    in.set_estimates({{-1, 4098}});
    c.set_estimates({{0, 4096}});
    FunctionDAG dag({c});
    Schedule s(dag);
    StageChoice t;
    t.tiling = GpuTiling::uniform({4096}, {128}, {1});
    s.set(dag.node(c.name())->id, FuncChoice::root({t}));
    s.set(dag.node(p.name())->id, FuncChoice::inlined());
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    CHECK(f.kernels == 1);
    CHECK(feature(f, c.name(), Feature::OpsMul) == 3);
    CHECK(feature(f, c.name(), Feature::OpsAddSub) == 4 + 3);
    CHECK(feature(f, c.name(), Feature::LoadsPerPoint) == 3);  // three reads of `in`, through p
}

TEST_CASE("a per-thread reduction member holds an operand beside each accumulator; a pure one only its values") {
    // out(x) = producer(x) over a compact 8-point tile per thread; producer
    // either pure or a 16-tap sum. The unrolled update keeps, per thread,
    // 8 accumulators and the 8 operands loaded for them (lens_blur's 4x32
    // aggregate, counted once, spilled at 255 registers); a float64 operand
    // takes two registers (fuzz seed 2050's 32 channels a step).
    auto registers = [](Halide::Type type, bool reduction) {
        Halide::ImageParam in(type, 1, "in");
        Halide::Func producer("producer"), out("out");
        Halide::Var x("x");
        Halide::RDom k(0, 16, "k");
        if (reduction) {
            producer(x) = Halide::cast(type, 0);
            producer(x) += in(x + k);
        } else {
            producer(x) = in(x) * 2;
        }
        out(x) = producer(x) + 1;
        in.set_estimates({{0, 4096 + 16}});
        out.set_estimates({{0, 4096}});
        FunctionDAG dag({out});
        const auto f = featurize_thread_member(dag, out, producer, GpuTiling::uniform({4096}, {32}, {8}, true));
        REQUIRE(f.kernels == 1);
        return feature(f, out.name(), Feature::RegistersPerThread);
    };
    CHECK(registers(Halide::Float(32), true) - registers(Halide::Float(32), false) == doctest::Approx(8));
    CHECK(registers(Halide::Float(64), true) - registers(Halide::Float(64), false) == doctest::Approx(2 * 8));
}

TEST_CASE("a kernel priced within 15% of the register file is not a candidate") {
    // out(x) = producer(x), producer per thread over a compact tile of S
    // points: 24 + 2·S + S registers. What the estimate leaves out took
    // fuzz pipelines priced at 222-252 registers past 255 (spills).
    auto featurize = [](int64_t serial) {
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func producer("producer"), out("out");
        Halide::Var x("x");
        producer(x) = in(x) * 2.0f;
        out(x) = producer(x) + 1.0f;
        in.set_estimates({{0, 8192}});
        out.set_estimates({{0, 8192}});
        FunctionDAG dag({out});
        return featurize_thread_member(dag, out, producer, GpuTiling::uniform({8192}, {32}, {serial}, true));
    };
    const ScheduleFeaturization fits = featurize(60);  // 204 registers
    CHECK(fits.legal);
    const ScheduleFeaturization tight = featurize(72);  // 240 registers
    CHECK_FALSE(tight.legal);
    CHECK(tight.why_illegal.find("room") != std::string::npos);
}

TEST_CASE("a thread's short rolled loops that load the same weights hold them in registers between them") {
    // out(x, y, c) = sum over r of in(x, y, r) * w(c, r), 4 points along y
    // per thread, each running its own rolled loop over r. ptxas unrolls a
    // short loop completely and serves the later points' loads of w from
    // the registers the first one loaded them into (ptxas 13.0, sm_80: 32
    // registers at 1 point a thread whatever r, 4 points: 56 over 32 steps,
    // 80 over 64, 166 over 128; 32 over 200, a loop it keeps).
    auto registers = [](int steps, int points_per_thread) {
        Halide::ImageParam in(Halide::Float(32), 3, "in"), w(Halide::Float(32), 2, "w");
        Halide::Func out("out");
        Halide::Var x("x"), y("y"), c("c");
        Halide::RDom r(0, steps, "r");
        out(x, y, c) = 0.0f;
        out(x, y, c) += in(x, y, r) * w(c, r);
        in.set_estimates({{0, 256}, {0, 256}, {0, steps}});
        w.set_estimates({{0, 16}, {0, steps}});
        out.set_estimates({{0, 256}, {0, 256}, {0, 16}});
        FunctionDAG dag({out});
        const auto f = featurize_root(dag, GpuTiling::uniform({256, 256, 16}, {32, 1, 1}, {1, points_per_thread, 1}));
        return feature(f, out.name() + ".s1", Feature::RegistersPerThread);
    };
    // Each later copy of the 64-step loop finds w's 64 values in registers.
    CHECK(registers(64, 4) - registers(64, 1) == doctest::Approx(2 * 3 + 64));
    // Past what ptxas unrolls, only the tile's accumulators.
    CHECK(registers(200, 4) - registers(200, 1) == doctest::Approx(2 * 3));
}

TEST_CASE("a row's mean and then its variance, each per thread, keep the row in registers between them") {
    // out(x, y) = centered(x, y) / var(y), with mean(y) the sum of the row
    // of float64 values, centered(x, y) = in(x, y) - mean(y) / row and
    // var(y) the sum of centered(r, y)², mean and var per thread. ptxas
    // unrolls both loops and keeps the row loaded by the first for the
    // second (a random pipeline's layer norm, fuzz seed 1126: 251 values,
    // 255 registers and 3 KB of spills; 32 registers with the second
    // loop's addresses moved off the first's). At 251 values that is past
    // the register file: not a candidate.
    auto featurize = [](int row) {
        Halide::ImageParam in(Halide::Float(64), 2, "in");
        Halide::Func mean("mean"), centered("centered"), var("var"), out("out");
        Halide::Var x("x"), y("y");
        Halide::RDom r(0, row, "r");
        mean(y) = Halide::cast<double>(0);
        mean(y) += in(r, y);
        centered(x, y) = in(x, y) - mean(y) / row;
        var(y) = Halide::cast<double>(0);
        var(y) += centered(r, y) * centered(r, y);
        out(x, y) = centered(x, y) / var(y);
        in.set_estimates({{0, row}, {0, 4096}});
        out.set_estimates({{0, row}, {0, 4096}});
        FunctionDAG dag({out});
        Schedule s(dag);
        StageChoice tile;
        tile.tiling = GpuTiling::uniform({row, 4096}, {16, 16}, {1, 1});
        const int out_id = dag.node(out.name())->id;
        s.set(out_id, FuncChoice::root({tile}));
        s.set(dag.node(mean.name())->id, FuncChoice::at(Placement::Thread, out_id, 0));
        s.set(dag.node(var.name())->id, FuncChoice::at(Placement::Thread, out_id, 0));
        s.set(dag.node(centered.name())->id, FuncChoice::inlined());
        complete_with_defaults(s, GpuSpec::by_name("a100"));
        return Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    };
    const ScheduleFeaturization short_rows = featurize(64);
    REQUIRE(short_rows.legal);
    // 64 doubles carried from the first loop to the second.
    CHECK(feature(short_rows, "out", Feature::RegistersPerThread) >= 2 * 64);
    const ScheduleFeaturization long_rows = featurize(251);
    CHECK_FALSE(long_rows.legal);
    CHECK(long_rows.why_illegal.find("registers") != std::string::npos);
}

TEST_CASE("a thread loads each distinct address of its point, even where two meet at the representative point") {
    // out(x, d) = in(x) - in(x + d), d in [-2, 2]: the representative
    // thread sits at d = 0, where both calls read one element, yet every
    // thread issues both loads (nl_means's patch differences).
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func out("out");
    Halide::Var x("x"), d("d");
    out(x, d) = in(x) - in(x + d);
    in.set_estimates({{-2, kSize + 4}});
    out.set_estimates({{0, kSize}, {-2, 5}});
    FunctionDAG dag({out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize, 5}, {256, 1}, {1, 1}));
    const double points = double(kSize) * 5;
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(points * 2 * 4));
}

TEST_CASE("inlined taps that reach one element through one index text load once, through different clamps twice") {
    // f(x) = pad(x - 1) + pad(x + 1) over a clamped input; out(x) = f(x -
    // 1) + f(x + 1), all inlined: the middle taps are in(clamp(x)) both
    // ways, one load in the Stmt, 3 a point. Read through a second
    // boundary condition, g(x) = f(clamp(x, -4, kSize + 3)), a clamp that
    // never binds over out's box, they are in(clamp(clamp(x - 1) + 1)) and
    // in(clamp(clamp(x + 1) - 1)): one element at every point, yet two
    // index texts and two loads, 4 a point (fuzz seed 2662: 600 loads a
    // point in its Stmt, priced 139 when taps were merged by the element).
    for (bool second_boundary : {false, true}) {
        INFO("second boundary condition: " << second_boundary);
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func f("f"), out("out");
        Halide::Var x("x");
        const Halide::Func pad = Halide::BoundaryConditions::repeat_edge(in, {{0, kSize}});
        f(x) = pad(x - 1) + pad(x + 1);
        const Halide::Func g = second_boundary ? Halide::BoundaryConditions::repeat_edge(f, {{-4, kSize + 8}}) : f;
        out(x) = g(x - 1) + g(x + 1);
        in.set_estimates({{0, kSize}});
        out.set_estimates({{0, kSize}});
        FunctionDAG dag({out});
        const auto features = featurize_all_inlined(dag, GpuTiling::uniform({kSize}, {256}, {1}));
        const double loads = second_boundary ? 4 : 3;
        CHECK(feature(features, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(kSize * loads * 4));
    }
}

TEST_CASE("an update under a where clause computes and loads only where the clause holds") {
    // sum(y) += in(r.x, y) over r.x < y, 64 rows: 2,016 of the 4,096 points
    // run (an rfactor intermediate over a guarded split has such a clause:
    // fuzz seed 3146's, priced 1.19x the points Halide computes).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func sum("sum");
    Halide::Var y("y");
    Halide::RDom r(0, 64, "r");
    r.where(r.x < y);
    sum(y) = 0.0f;
    sum(y) += in(r.x, y);
    in.set_estimates({{0, 64}, {0, 64}});
    sum.set_estimates({{0, 64}});
    FunctionDAG dag({sum});
    const auto f = featurize_root(dag, GpuTiling::uniform({64}, {64}, {1}));
    CHECK(feature(f, sum.name() + ".s1", Feature::PointsComputed) == doctest::Approx(2016));
}

TEST_CASE("a Func no read of which survives Halide's simplifier is priced as no kernel") {
    // use(x) = lowest(x) - lowest(x) folds to 0: Halide builds no kernel for
    // the reduction lowest (which cannot be inlined), nor loads it (fuzz
    // seed 3215's argmin, priced two kernels Halide did not build).
    Halide::ImageParam in(Halide::Int(32), 2, "in");
    Halide::Func lowest("lowest"), use("use");
    Halide::Var x("x");
    Halide::RDom r(0, 64, "r");
    lowest(x) = 0;
    lowest(x) = Halide::min(lowest(x), in(x, r));
    use(x) = lowest(x) - lowest(x) + in(x, 0);
    in.set_estimates({{0, 64}, {0, 64}});
    use.set_estimates({{0, 64}});
    FunctionDAG dag({use});
    const auto f = featurize_root(dag, GpuTiling::uniform({64}, {64}, {1}));
    for (const auto &s : f.stages) CHECK(s.name.rfind(lowest.name(), 0) != 0);
    CHECK(feature(f, use.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(64 * 4));
}

TEST_CASE("an update that folds to a store of its own point once its producers are inlined is priced as no kernel") {
    // acc(x) += w(x) * (g(x) - g(x)) with g inlined is acc(x) = acc(x):
    // Halide drops the store and the update's kernel (fuzz seed 3225,
    // priced a kernel Halide did not build); its pure stage stays.
    const strata::testing::ZeroedUpdatePipeline p(kSize);
    const Halide::Func &acc = p.acc;
    FunctionDAG dag({acc});
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({kSize}, {64}, {1});
    for (const Node *n : dag.funcs()) {
        s.set(n->id, n->is_output ? FuncChoice::root({tile, tile}) : FuncChoice::inlined());
    }
    const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    bool update_priced = false, pure_priced = false;
    for (const auto &st : f.stages) {
        update_priced |= st.name == acc.name() + ".s1";
        pure_priced |= st.name == acc.name() + ".s0";
    }
    CHECK_FALSE(update_priced);
    CHECK(pure_priced);
}

TEST_CASE("a Thread member whose reduction stays rolled reloads its tile's operands at every step") {
    // out(x, y) = m(x, y), m(x, y) = max over 53 taps of in(x + k, y), m per
    // thread over a compact 4×4 tile. 53 taps are too many to unroll, so
    // the writer runs k around the unrolled tile: each step loads the 16
    // elements the tile reads there, 53 × 16 per thread — not the 56 × 4
    // of the thread's box (max_filter's horizontal pass; its lowered code
    // counted 2.50 GB where the box priced 0.66 GB).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func m("m"), out("out");
    Halide::Var x("x"), y("y");
    Halide::RDom k(0, 53, "k");
    m(x, y) = Halide::Float(32).min();
    m(x, y) = Halide::max(m(x, y), in(x + k, y));
    out(x, y) = m(x, y);
    in.set_estimates({{0, kSize + 52}, {0, kSize}});
    out.set_estimates({{0, kSize}, {0, kSize}});
    FunctionDAG dag({out});
    const auto f =
        featurize_thread_member(dag, out, m, GpuTiling::uniform({kSize, kSize}, {16, 16}, {4, 4}, /*compact=*/true));
    REQUIRE(f.kernels == 1);
    const double loaded = feature_over_stages(f, m.name(), Feature::GlobalLoadBytesUseful);
    CHECK(loaded == doctest::Approx(double(kSize) * kSize * 53 * 4).epsilon(0.02));
}

TEST_CASE("a rolled reduction whose index rounds or clamps still loads at every step") {
    // m(x, y) = sum over 28 taps of in(min(k, 13) / 2, y) per thread, one
    // point a thread (fuzz seed 3230's s4_reduce): steps 14 and 15 of k
    // reach one element, but the address is written over k, so the load
    // is not hoisted and runs at all 28 steps (priced at the middle step,
    // it was taken for a load hoisted out of k: 1 load where Halide's code
    // makes 28).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func m("m"), out("out");
    Halide::Var x("x"), y("y");
    Halide::RDom k(0, 28, "k");
    m(x, y) = 0.0f;
    m(x, y) += in(Halide::min(k, 13) / 2 + x, y);
    out(x, y) = m(x, y);
    in.set_estimates({{0, kSize + 7}, {0, kSize}});
    out.set_estimates({{0, kSize}, {0, kSize}});
    FunctionDAG dag({out});
    const auto f =
        featurize_thread_member(dag, out, m, GpuTiling::uniform({kSize, kSize}, {16, 16}, {1, 1}, /*compact=*/true));
    REQUIRE(f.kernels == 1);
    const double loaded = feature_over_stages(f, m.name(), Feature::GlobalLoadBytesUseful);
    CHECK(loaded == doctest::Approx(double(kSize) * kSize * 28 * 4).epsilon(0.02));
}

TEST_CASE("two inlined Funcs read at one data-dependent index load its element once") {
    // out(x) = a(i) + b(i) with i = idx(x) and a, b inlined reads of `in`:
    // Halide's Stmt loads in[i] once for both (lens_blur's radius(sx, sy)
    // and depth(sx, sy), one depth_search load per tap). Per point: idx and
    // in, once each.
    Halide::ImageParam in(Halide::Float(32), 1, "in"), idx(Halide::Int(32), 1, "idx");
    Halide::Func a("a"), b("b"), out("out");
    Halide::Var x("x");
    a(x) = in(x) * 2.0f;
    b(x) = in(x) + 1.0f;
    const Halide::Expr i = Halide::clamp(idx(x), 0, kSize - 1);
    out(x) = a(i) + b(i);
    in.set_estimates({{0, kSize}});
    idx.set_estimates({{0, kSize}});
    out.set_estimates({{0, kSize}});
    FunctionDAG dag({out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize}, {256}, {1}));
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(double(kSize) * 2 * 4));
}

TEST_CASE("two inlined reads through nested divisions that meet only where x / 2 is odd are two loads") {
    // out(x) = a(x / 2) + b(x / 2) with a(u) = in(min(u / 2 + 1, 200)) and
    // b(u) = in(min((u + 1) / 2, 200)): one element wherever x / 2 is odd or
    // both clamp, one apart elsewhere, so the Stmt keeps both loads. Over
    // x in [2, 1026) the box's corners and middle all fall where they meet
    // (interpolate's level 4 over levels 5 and 6: 134 loads a point, priced
    // 86 when such points alone compared them).
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func a("a"), b("b"), out("out");
    Halide::Var x("x"), u("u");
    a(u) = in(Halide::min(u / 2 + 1, 200));
    b(u) = in(Halide::min((u + 1) / 2, 200)) * 2.0f;
    out(x) = a(x / 2) + b(x / 2);
    in.set_estimates({{0, 201}});
    out.set_estimates({{2, kSize}});
    FunctionDAG dag({out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize}, {256}, {1}));
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(double(kSize) * 2 * 4));
}

TEST_CASE("a Block member loads an element the whole block shares once per thread") {
    // p(x, y, c) = in(x, y, c) · scale(c), in shared memory per 32×32 block
    // (32×8 threads, 4 rows each) of out(x, y, c) = p(x, y, c) + p(x + 1,
    // y, c), one channel per block: scale(c) is one element for the whole
    // block, and the compiler hoists its load out of each thread's serial
    // loop over p's 33×32 points (camera_pipe's colour matrix, priced per
    // point, put its member at twice the loads Halide's code makes). Per
    // block: 1056 loads of `in`, one of scale per thread.
    Halide::ImageParam in(Halide::Float(32), 3, "in"), scale(Halide::Float(32), 1, "scale");
    Halide::Func p("p"), out("out");
    Halide::Var x("x"), y("y"), c("c");
    p(x, y, c) = in(x, y, c) * scale(c);
    out(x, y, c) = p(x, y, c) + p(x + 1, y, c);
    in.set_estimates({{0, kSize + 1}, {0, 64}, {0, 3}});
    scale.set_estimates({{0, 3}});
    out.set_estimates({{0, kSize}, {0, 64}, {0, 3}});
    FunctionDAG dag({out});
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({kSize, 64, 3}, {32, 8, 1}, {1, 4, 1});
    const int out_id = dag.node(out.name())->id;
    s.set(out_id, FuncChoice::root({tile}));
    s.set(dag.node(p.name())->id, FuncChoice::at(Placement::Block, out_id, 0));
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    REQUIRE(f.kernels == 1);
    const double blocks = kSize / 32 * (64 / 32) * 3;
    CHECK(feature(f, p.name(), Feature::GlobalLoadBytesUseful) ==
          doctest::Approx(blocks * (33 * 32 + 256) * 4).epsilon(0.02));
}

namespace {

// out(f, t) = in(f, t) · scale(f) over 1000 × 1002 (a layer norm's
// per-feature scale): no tile of 4 or 8 rows divides 1002, so the tail
// along t is checked point by point.
struct Scaled {
    Halide::ImageParam in{Halide::Float(32), 2, "in"}, scale{Halide::Float(32), 1, "scale"};
    Halide::Func out{"out"};
    Halide::Var f{"f"}, t{"t"};
    Scaled() {
        out(f, t) = in(f, t) * scale(f);
        in.set_estimates({{0, 1000}, {0, 1002}});
        scale.set_estimates({{0, 1000}});
        out.set_estimates({{0, 1000}, {0, 1002}});
    }
};

}  // namespace

TEST_CASE("a strided thread loads an element its points all read once, whatever the kernel") {
    // 16 threads along t, each owning 4 rows 16 apart: the four points read
    // one scale(f), and the unrolled code loads it once (layer_norm's
    // output kernel: 71 MB lowered against 134 MB priced when each strided
    // copy loaded its own). Per point: in, and a quarter of scale.
    Scaled s;
    FunctionDAG dag({s.out});
    const auto f = featurize_root(dag, GpuTiling::uniform({1000, 1002}, {16, 16}, {1, 4}, /*compact=*/false));
    const double points = 1000.0 * 1002;
    CHECK(feature(f, s.out.name(), Feature::GlobalLoadBytesUseful) ==
          doctest::Approx(points * 4 * (1 + 0.25)).epsilon(0.02));
}

TEST_CASE("checked points along a thread's innermost serial loop share loads; its rows do not") {
    // Unpartitioned (one checked copy in every block), a compact 4 × 2 tile
    // of serial points per thread: Halide nests the checks of the 4 points
    // along f, so they load their scale(f) elements as straight-line code
    // does, once each; the 2 rows along t are checked apart and load them
    // again. Per thread: 8 of `in`, 2 × 4 of scale — where the loads of
    // every checked point were priced apart before, as a Thread member's
    // are.
    Scaled s;
    FunctionDAG dag({s.out});
    for (bool partitioned : {true, false}) {
        INFO("partitioned: " << partitioned);
        GpuTiling tiling = GpuTiling::uniform({1000, 1002}, {16, 16}, {4, 2}, /*compact=*/true);
        tiling.partitioned = partitioned;
        const auto f = featurize_root(dag, tiling);
        const double points = 1000.0 * 1002;
        // Partitioned, the interior blocks load scale once per column (a
        // quarter of the border's 2 × 4 per 8 points).
        const double scale_per_point = partitioned ? 0.5 : 1.0;
        CHECK(feature(f, s.out.name(), Feature::GlobalLoadBytesUseful) ==
              doctest::Approx(points * 4 * (1 + scale_per_point)).epsilon(0.03));
    }
}

TEST_CASE("a thread's rows load apart where one statement holds a point's taps, and share where each tap is its own") {
    // Four rows per thread (a compact 1 × 4 tile) of a three-row sum of
    // `in`. Written as one expression, in(x, y) + in(x, y + 1) + in(x, y + 2),
    // Halide writes each tap as the point's row plus a multiple of the
    // runtime stride, and the rows' copies of one element are different
    // expressions: 4 × 3 loads a thread (stencil_chain's per-thread stages,
    // whose PTX loads 12 rows × 3 taps × 8 where 14 × 8 were priced).
    // Written as an update over an unrolled RVar, each tap is a statement of
    // its own whose row Halide writes whole: the rows share, 4 + 2 loads,
    // beside the 4 of the update's own points, which the pure stage stored.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), y("y");
    const GpuTiling tiling = GpuTiling::uniform({kSize, kSize}, {64, 1}, {1, 4}, /*compact=*/true);
    const double threads = double(kSize) * kSize / 4;
    in.set_estimates({{0, kSize}, {0, kSize + 2}});
    {
        Halide::Func out("out");
        out(x, y) = in(x, y) + in(x, y + 1) + in(x, y + 2);
        out.set_estimates({{0, kSize}, {0, kSize}});
        FunctionDAG dag({out});
        const auto f = featurize_root(dag, tiling);
        CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(threads * 12 * 4));
    }
    {
        Halide::Func out("out");
        Halide::RDom r(0, 3, "r");
        out(x, y) = 0.0f;
        out(x, y) += in(x, y + r);
        out.set_estimates({{0, kSize}, {0, kSize}});
        FunctionDAG dag({out});
        const auto f = featurize_root(dag, tiling);
        CHECK(feature(f, out.name() + ".s1", Feature::GlobalLoadBytesUseful) ==
              doctest::Approx(threads * (6 + 4) * 4).epsilon(0.01));
    }
}

TEST_CASE("a thread's copies along a division load apart, even where they meet") {
    // out(x, y) = in(x / 2, y) over a compact 4 × 1 tile: the four points
    // read two elements, but x / 2 steps with the parity of a runtime
    // origin, and the lowered code loads once per point (camera_pipe's
    // demosaic: 24 loads a point in its PTX).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func out("out");
    Halide::Var x("x"), y("y");
    out(x, y) = in(x / 2, y);
    in.set_estimates({{0, kSize / 2}, {0, kSize}});
    out.set_estimates({{0, kSize}, {0, kSize}});
    FunctionDAG dag({out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize, kSize}, {16, 16}, {4, 1}, /*compact=*/true));
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(double(kSize) * kSize * 4));
}

TEST_CASE("a Thread member indexed along a rolled loop of its reader is not a candidate; along an unrolled one it is") {
    // out(x) = sum over r of m(x + r), m per thread in registers. Over 3
    // taps the writer unrolls r as taps, over 53 because r indexes m
    // (KernelGeometry::unrolled_rvars): every index into m is a constant.
    // Over 200 it stays a loop, and Halide keeps m in an array on the
    // thread's stack (ptxas: a stack frame), which the model does not price.
    for (int taps : {3, 53, 200}) {
        INFO("taps: " << taps);
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func m("m"), out("out");
        Halide::Var x("x");
        Halide::RDom r(0, taps, "r");
        m(x) = in(x) * 2.0f;
        out(x) = 0.0f;
        out(x) += m(x + r);
        in.set_estimates({{0, kSize + taps}});
        out.set_estimates({{0, kSize}});
        FunctionDAG dag({out});
        Schedule s(dag);
        StageChoice tile;
        tile.tiling = GpuTiling::uniform({kSize}, {64}, {1});
        const int out_id = dag.node(out.name())->id;
        s.set(out_id, FuncChoice::root({tile, tile}));
        s.set(dag.node(m.name())->id, FuncChoice::at(Placement::Thread, out_id, 1));
        complete_with_defaults(s, GpuSpec::by_name("a100"));
        const ScheduleFeaturization f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
        CHECK(f.legal == (taps <= kMaxUnrolledPoints));
        if (!f.legal) CHECK(f.why_illegal.find("local memory") != std::string::npos);
    }
}

TEST_CASE("a load of one element of a tuple Func reads that element's bytes, not the tuple's") {
    // best(x) = (index, cost), both int32, at root; out(x) = best(x)[0]:
    // Halide keeps each element in its own buffer and out loads 4 bytes
    // of best.0 per point (lens_blur's depth, the index of depth_search:
    // priced at the tuple's 8 bytes, its blur kernels were charged 1.8x
    // the loads of their lowered code).
    Halide::ImageParam in(Halide::Int(32), 1, "in");
    Halide::Func best("best"), out("out");
    Halide::Var x("x");
    best(x) = Halide::Tuple(in(x) * 2, in(x) + 1);
    out(x) = best(x)[0] * 3;
    in.set_estimates({{0, kSize}});
    out.set_estimates({{0, kSize}});
    FunctionDAG dag({out});
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({kSize}, {256}, {1});
    s.set(dag.node(out.name())->id, FuncChoice::root({tile}));
    s.set(dag.node(best.name())->id, FuncChoice::root({tile}));
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(double(kSize) * 4));
}

TEST_CASE("a scan loads the neighbour it just stored at every step; an edge stage loads nothing of its own") {
    // iir_blur's passes along x, one thread per row: the edge column,
    // f(r) = f(r - 1) / 2 + in(r), then f(i) = (f(i + 1) + f(i)) / 2
    // backwards. The PTX of iir_blur loads both of the last pass's operands
    // at every step; the model had priced one load of the stored point for
    // every update (the edge twice its loads, the backward pass half).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func f("f");
    Halide::Var x("x"), y("y");
    Halide::RDom forward(1, kSize - 1, "forward"), backward(0, kSize - 1, "backward");
    f(x, y) = Halide::undef<float>();
    f(0, y) = in(0, y);
    f(forward, y) = f(forward - 1, y) * 0.5f + in(forward, y);
    const Halide::Expr i = kSize - 2 - backward;
    f(i, y) = (f(i + 1, y) + f(i, y)) * 0.5f;
    in.set_estimates({{0, kSize}, {0, kSize}});
    f.set_estimates({{0, kSize}, {0, kSize}});
    FunctionDAG dag({f});
    Schedule s(dag);
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    const auto features = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    auto stage = [&](int k, Feature which) { return feature(features, f.name() + ".s" + std::to_string(k), which); };
    const double row = kSize, scanned = double(kSize) * (kSize - 1);
    CHECK(stage(1, Feature::GlobalLoadBytesUseful) == doctest::Approx(row * 4));
    CHECK(stage(2, Feature::GlobalLoadBytesUseful) == doctest::Approx(scanned * 8));
    CHECK(stage(3, Feature::GlobalLoadBytesUseful) == doctest::Approx(scanned * 8));
    // DRAM: the edge stores one column, not the whole image.
    CHECK(stage(1, Feature::DramBytes) < row * 4 * 4);
}

TEST_CASE("a scan's steps form a chain: every step a thread runs, and those whose loads miss L1") {
    // iir_blur's two scan directions over a copied image: down the columns
    // (each step stores and reads a new row: a new sector every step) and
    // along the rows (eight floats to a 32-byte sector: one step in eight).
    // An accumulator's update reads its own point but chains nothing.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func down("down"), along("along"), sum("sum");
    Halide::Var x("x"), y("y");
    Halide::RDom rows(1, kSize - 1, "rows"), cols(1, kSize - 1, "cols"), r(0, 16, "r");
    down(x, y) = in(x, y);
    down(x, rows) = down(x, rows) + down(x, rows - 1) * 0.5f;
    along(x, y) = down(x, y);
    along(cols, y) = along(cols, y) + along(cols - 1, y) * 0.5f;
    sum(x, y) = 0.0f;
    sum(x, y) += along(x, y) + in(r, y);
    in.set_estimates({{0, kSize}, {0, kSize}});
    sum.set_estimates({{0, kSize}, {0, kSize}});
    FunctionDAG dag({sum});
    Schedule s(dag);
    complete_with_defaults(s, GpuSpec::by_name("a100"));
    const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
    auto steps_of = [&](const std::string &stage) {
        return feature(f, stage, Feature::SerialIterationsPerThread) /
               std::max(1.0, feature(f, stage, Feature::UnrollFactor));
    };
    const double down_steps = steps_of(down.name() + ".s1"), along_steps = steps_of(along.name() + ".s1");
    CHECK(down_steps >= kSize - 1);
    CHECK(along_steps >= kSize - 1);
    CHECK(feature(f, down.name() + ".s1", Feature::DependentSteps) == doctest::Approx(down_steps));
    CHECK(feature(f, down.name() + ".s1", Feature::DependentStepMisses) == doctest::Approx(down_steps));
    CHECK(feature(f, along.name() + ".s1", Feature::DependentSteps) == doctest::Approx(along_steps));
    CHECK(feature(f, along.name() + ".s1", Feature::DependentStepMisses) == doctest::Approx(along_steps / 8));
    for (const std::string &stage : {down.name() + ".s0", sum.name() + ".s1"}) {
        CHECK(feature(f, stage, Feature::DependentSteps) == 0);
        CHECK(feature(f, stage, Feature::DependentStepMisses) == 0);
    }
}

TEST_CASE("an update whose bin index simplifies to a constant stores once per lane, not once per point") {
    // A histogram per lane u over 64 samples, by rfactor's intermediate's
    // shape: with one bin, clamp(v, 0, 0) is the constant 0, the compiled
    // code keeps the count in a register across r and stores it once per
    // lane (fuzz seeds 3173 and 3289: 280 and 1,040 bytes stored lowered,
    // 438,656 and 3.06 M priced); with four bins each sample stores.
    for (const int bins : {1, 4}) {
        INFO("bins: " << bins);
        Halide::ImageParam in(Halide::UInt(8), 2, "in");
        Halide::Func count("count");
        Halide::Var b("b"), u("u");
        Halide::RDom r(0, 64, "r");
        count(b, u) = 0;
        count(Halide::clamp(Halide::cast<int>(in(r, u)), 0, bins - 1), u) += 1;
        in.set_estimates({{0, 64}, {0, 256}});
        count.set_estimates({{0, bins}, {0, 256}});
        FunctionDAG dag({count});
        const Stage &update = *dag.node(count.name())->stages[1];
        CHECK(update.data_dependent_store);
        CHECK(update.store_fixed == (bins == 1));
        Schedule s(dag);
        StageChoice pure, lanes;
        pure.tiling = GpuTiling::uniform({bins, 256}, {1, 256}, {1, 1}, /*compact=*/true);
        lanes.tiling = GpuTiling::uniform({256}, {256}, {1}, /*compact=*/true);
        s.set(dag.node(count.name())->id, FuncChoice::root({pure, lanes}));
        complete_with_defaults(s, GpuSpec::by_name("a100"));
        const auto f = Featurizer(dag, GpuSpec::by_name("a100")).featurize(s);
        const double stores = bins == 1 ? 256 : 256 * 64;
        CHECK(feature(f, count.name() + ".s1", Feature::GlobalStoreBytesUseful) == doctest::Approx(stores * 4));
    }
}

TEST_CASE("an inlined Func read at one tuple element brings only that element's loads") {
    // Halide inlines the element read: out loads b alone, 4 bytes a point,
    // not a's 8 as well (fuzz seed 3198: 12 bytes a point priced, 0 loaded
    // beside the element's own).
    Halide::ImageParam a(Halide::Float(64), 1, "a"), b(Halide::Float(32), 1, "b");
    Halide::Func pair("pair"), out("out");
    Halide::Var x("x");
    pair(x) = Halide::Tuple(Halide::cast<float>(a(x)) * 2.0f, b(x) + 1.0f);
    out(x) = pair(x)[1] * 3.0f;
    a.set_estimates({{0, kSize}});
    b.set_estimates({{0, kSize}});
    out.set_estimates({{0, kSize}});
    FunctionDAG dag({out});
    const auto f = featurize_root(dag, GpuTiling::uniform({kSize}, {256}, {1}, /*compact=*/true));
    CHECK(feature(f, out.name(), Feature::GlobalLoadBytesUseful) == doctest::Approx(double(kSize) * 4));
}

TEST_CASE("kernels that differ only in where an imported Thread member is computed are memoized apart") {
    // out(x) = p(x - 1) + p(x + 1) over 8 points per thread, p per thread:
    // once over the thread's 10-point footprint, or (imported, Mullapudi2016
    // style) anew at every point of the thread's serial loop, over 3.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func p("p"), out("out");
    Halide::Var x("x");
    p(x) = in(x) * 2.0f;
    out(x) = p(x - 1) + p(x + 1);
    in.set_estimates({{-1, 4098}});
    out.set_estimates({{0, 4096}});
    FunctionDAG dag({out});
    const GpuSpec spec = GpuSpec::by_name("a100");
    const int out_id = dag.node(out.name())->id, p_id = dag.node(p.name())->id;
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({4096}, {32}, {8}, true);
    Schedule once(dag);
    once.set(out_id, FuncChoice::root({tile}));
    once.set(p_id, FuncChoice::at(Placement::Thread, out_id, 0));
    complete_with_defaults(once, spec);
    Schedule per_point = once;
    FuncChoice recomputed = once.choice(p_id);
    recomputed.imported_per_computation = {1};
    per_point.set(p_id, recomputed);

    Featurizer featurizer(dag, spec);
    uint64_t once_key = 0, per_point_key = 0;
    const double once_points =
        featurizer.kernel(once, out_id, 0, &once_key).stages.back().features[index(Feature::PointsComputed)];
    const double per_point_points =
        featurizer.kernel(per_point, out_id, 0, &per_point_key).stages.back().features[index(Feature::PointsComputed)];
    CHECK(once_key != per_point_key);
    CHECK(featurizer.stats().kernels_featurized == 2);
    CHECK(per_point_points > once_points);
}
