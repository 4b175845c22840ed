// MemberThreads on a softmax-like row reduction computed per block: the
// kernel's threads go to the member's loops that span more than one point
// per block, the writer splits exactly those, and the featurizer prices the
// threads that have work (a block of one row leaves one thread to sum it).
#include "Featurizer.h"
#include "MemberThreads.h"
#include "ScheduleWriter.h"

#include <doctest/doctest.h>

#include <map>

using namespace strata::autoscheduler;
using strata::costmodel::Feature;
using strata::costmodel::GpuSpec;
using strata::costmodel::index;

namespace {

constexpr int kWidth = 1024, kRows = 512;

// out(x, y) = in(x, y) / row_sum(y), row_sum(y) = Σ_r in(r, y).
struct RowNormalize {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func row_sum{"row_sum"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    Halide::RDom r{0, kWidth, "r"};
    RowNormalize() {
        row_sum(y) = 0.f;
        row_sum(y) += in(r, y);
        out(x, y) = in(x, y) / row_sum(y);
        in.set_estimates({{0, kWidth}, {0, kRows}});
        out.set_estimates({{0, kWidth}, {0, kRows}});
    }
};

const GpuSpec &a100() { return GpuSpec::by_name("a100"); }

// out in blocks of `threads` (x, y) threads with one point each; row_sum per block.
Schedule per_block_sums(const RowNormalize &p, const FunctionDAG &dag, std::vector<int64_t> threads) {
    Schedule s(dag);
    const Node &out = *dag.node(p.out.name()), &sum = *dag.node(p.row_sum.name());
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({kWidth, kRows}, threads, {1, 1});
    s.set(out.id, FuncChoice::root({tile}));
    s.set(sum.id, FuncChoice::at(Placement::Block, out.id, 0));
    complete_with_defaults(s, a100());
    return s;
}

double feature(const ScheduleFeaturization &f, const std::string &stage, Feature which) {
    for (const auto &s : f.stages) {
        if (s.name.rfind(stage, 0) == 0) return s.features[index(which)];
    }
    FAIL("no stage " << stage);
    return 0;
}

std::string source_of(const FunctionDAG &dag, const ScheduleWriter &writer) {
    std::map<std::string, int> indices;
    int i = 0;
    for (const Node *n : dag.funcs()) indices[n->name] = i++;
    return writer.source(indices);
}

}  // namespace

TEST_CASE("threads go to the member's loops that span more than one point, in order") {
    RowNormalize p;
    FunctionDAG dag({p.out});
    const Stage &update = *dag.node(p.row_sum.name())->stages[1];  // loops: r (rvar), y
    REQUIRE(update.loops.size() == 2);
    const std::vector<Span> one_row = {{0, kWidth}, {7, 1}}, sixteen_rows = {{0, kWidth}, {16, 16}};
    // One row per block: the row loop gets no threads; nothing else can take them.
    CHECK(member_loop_threads(update, one_row, {64}) == std::vector<int64_t>{1, 1});
    CHECK(active_member_threads(update, one_row, {64}) == 1);
    // Sixteen rows: the row loop takes the innermost thread dimension, 16 of its 32 threads working.
    CHECK(member_loop_threads(update, sixteen_rows, {32, 8}) == std::vector<int64_t>{1, 32});
    CHECK(active_member_threads(update, sixteen_rows, {32, 8}) == 16);
}

TEST_CASE("a block of one row prices the one thread that sums it") {
    RowNormalize p;
    FunctionDAG dag({p.out});
    const Schedule one_row_schedule = per_block_sums(p, dag, {64, 1}), sixteen_rows_schedule = per_block_sums(p, dag, {16, 16});
    Featurizer featurizer(dag, a100());
    const ScheduleFeaturization one_row = featurizer.featurize(one_row_schedule);
    const ScheduleFeaturization sixteen_rows = featurizer.featurize(sixteen_rows_schedule);
    REQUIRE(one_row.legal);
    REQUIRE(sixteen_rows.legal);
    // 64 threads, one of them summing the block's row: 1024 additions in a row.
    CHECK(feature(one_row, p.row_sum.name() + ".s1", Feature::ActiveThreadFraction) == doctest::Approx(1.0 / 64));
    CHECK(feature(one_row, p.row_sum.name() + ".s1", Feature::SerialIterationsPerThread) == doctest::Approx(kWidth));
    // 16×16 threads over a block of 16 rows: 16 threads sum, one row each.
    CHECK(feature(sixteen_rows, p.row_sum.name() + ".s1", Feature::ActiveThreadFraction) == doctest::Approx(16.0 / 256));
    CHECK(feature(sixteen_rows, p.row_sum.name() + ".s1", Feature::SerialIterationsPerThread) == doctest::Approx(kWidth));
    // The kernel's own stage keeps every thread busy.
    CHECK(feature(one_row, p.out.name() + ".s0", Feature::ActiveThreadFraction) == doctest::Approx(1.0));
}

TEST_CASE("the writer splits only the loops the member's threads go to") {
    RowNormalize p;
    FunctionDAG dag({p.out});
    const Schedule one_row_schedule = per_block_sums(p, dag, {64, 1}), sixteen_rows_schedule = per_block_sums(p, dag, {16, 16});
    const std::string one_row = source_of(dag, ScheduleWriter(dag, one_row_schedule, a100()));
    INFO(one_row);
    // No thread loop over a row loop of extent 1: the row is summed serially.
    CHECK(one_row.find(".split(y, y_s, y_t") == std::string::npos);
    const std::string sixteen_rows = source_of(dag, ScheduleWriter(dag, sixteen_rows_schedule, a100()));
    INFO(sixteen_rows);
    CHECK(sixteen_rows.find(".split(y, y_s, y_t, 16, TailStrategy::GuardWithIf)") != std::string::npos);
}
