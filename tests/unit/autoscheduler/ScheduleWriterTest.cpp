// ScheduleWriter: the directives it emits for a member's buffer, and that
// Halide lowers what it emits — here a Thread member of a kernel whose
// block loops are fused, where Halide's bounds alone prove no constant
// size for a register buffer.
#include "Featurizer.h"
#include "LoweringProbe.h"
#include "Schedule.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

#include <map>

using namespace strata::autoscheduler;
using strata::testing::id_of;
using strata::costmodel::GpuSpec;

namespace {

const GpuSpec &a100() { return GpuSpec::by_name("a100"); }

// A batched matrix product read by a copy, four pure dimensions (x, y,
// heads, batch) as attention's are: the writer fuses the last two block
// loops into one grid dimension. `masked`: the copy reads the product of
// the first two heads only.
struct BatchedProduct {
    Halide::ImageParam a{Halide::Float(32), 4, "a"}, b{Halide::Float(32), 4, "b"};
    Halide::Func product{"product"}, out{"out"};
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    explicit BatchedProduct(bool masked = false) {
        Halide::RDom k(0, a.dim(0).extent(), "k");
        product(x, y, c, n) = 0.0f;
        product(x, y, c, n) += a(k, y, c, n) * b(k, x, c, n);
        out(x, y, c, n) = masked ? Halide::select(c < 2, product(x, y, c, n), 0.0f) : product(x, y, c, n) * 2.0f;
        a.set_estimates({{0, 64}, {0, 512}, {0, 8}, {0, 4}});
        b.set_estimates({{0, 64}, {0, 512}, {0, 8}, {0, 4}});
        out.set_estimates({{0, 512}, {0, 512}, {0, 8}, {0, 4}});
    }
};

}  // namespace

// Writes `product` per thread of `out` (16×4×4 threads over x, y, c) and
// returns the schedule's source.
std::string product_per_thread(const BatchedProduct &p) {
    FunctionDAG dag({p.out});
    const int out = id_of(dag, "out"), product = id_of(dag, "product");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({512, 512, 8, 4}, {16, 4, 4, 1}, {1, 1, 1, 1});
    s.set(out, FuncChoice::root({tiled}));
    s.set(product, FuncChoice::at(Placement::Thread, out, 0));
    complete_with_defaults(s, a100());
    Featurizer featurizer(dag, a100());
    REQUIRE(featurizer.featurize(s).legal);
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    std::map<std::string, int> index;
    for (const Node *node : dag.funcs()) index[node->name] = int(index.size());
    return strata::testing::without_unique_suffixes(writer.source(index));
}

TEST_CASE("a Thread member of a kernel with fused block loops gets its one-point dimensions bounded outright") {
    // out: 16×4×4 threads over (x, y, c), one point each, n in the blocks;
    // the block loops of c and n are fused. product per thread, in
    // registers: its extent along c (and x, y, n) is one point, which
    // Halide cannot prove through the fused block index ("unable to infer
    // constant upper bound on extent of realization product"), so the
    // writer says it: bound_extent(d, 1), as for chunk partials.
    BatchedProduct p;
    const std::string source = product_per_thread(p);
    INFO(source);
    CHECK(source.find(".fuse(") != std::string::npos);
    for (const char *dim : {"x", "y", "c", "n"}) {
        CHECK(source.find(std::string(".bound_extent(") + dim + ", 1)") != std::string::npos);
    }
    CHECK(source.find("MemoryType::Register") != std::string::npos);
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    CHECK_MESSAGE(!error.has_value(), error.value_or(""));
}

TEST_CASE("a Thread member read under a condition keeps the extents Halide infers") {
    // out reads product only where c < 2: Halide's bounds give the other
    // heads' threads no product at all. A forced point there would be
    // computed anyway, reading past what the product's operands cover.
    BatchedProduct p(/*masked=*/true);
    const std::string source = product_per_thread(p);
    INFO(source);
    CHECK(source.find(".bound_extent(") == std::string::npos);
    CHECK(source.find("MemoryType::Register") != std::string::npos);
}

TEST_CASE("a Thread member with several points along a fused block loop is one Halide cannot size") {
    // Four batches per thread along n, whose block loop is fused with c's:
    // no bound_extent can say 4 without computing past the last batch, and
    // Halide proves no constant extent by itself. The search does not
    // offer Thread members in such a kernel (GpuTiling::serial_along_fused_block).
    BatchedProduct p;
    FunctionDAG dag({p.out});
    const int out = id_of(dag, "out"), product = id_of(dag, "product");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({512, 512, 8, 4}, {16, 4, 1, 1}, {1, 1, 1, 4}, /*compact=*/true);
    REQUIRE(tiled.tiling.serial_along_fused_block());
    s.set(out, FuncChoice::root({tiled}));
    s.set(product, FuncChoice::at(Placement::Thread, out, 0));
    complete_with_defaults(s, a100());
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    REQUIRE(error.has_value());
    CHECK(funcs_named_in(*error, {p.product.name(), p.out.name()}) == std::set<std::string>{p.product.name()});
}

TEST_CASE("the writer unrolls the reduction loop along which a kernel reads a Thread member") {
    // out(x) = Σ over 32 steps of m(x + r), m per thread in registers: the
    // loop is too long for a tap, but rolled it would index m at run time
    // (an array on the thread's stack), so the writer unrolls it
    // (KernelGeometry::unrolled_rvars), as the Featurizer priced it.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Func m("m"), out("out");
    Halide::Var x("x");
    Halide::RDom r(0, 32, "r");
    m(x) = in(x) * 2.0f;
    out(x) = 0.0f;
    out(x) += m(x + r);
    in.set_estimates({{0, 4096 + 32}});
    out.set_estimates({{0, 4096}});
    FunctionDAG dag({out});
    const int out_id = id_of(dag, "out");
    Schedule s(dag);
    StageChoice tile;
    tile.tiling = GpuTiling::uniform({4096}, {64}, {1});
    s.set(out_id, FuncChoice::root({tile, tile}));
    s.set(id_of(dag, "m"), FuncChoice::at(Placement::Thread, out_id, 1));
    complete_with_defaults(s, a100());
    REQUIRE(Featurizer(dag, a100()).featurize(s).legal);
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    std::map<std::string, int> index;
    for (const Node *node : dag.funcs()) index[node->name] = int(index.size());
    const std::string source = strata::testing::without_unique_suffixes(writer.source(index));
    INFO(source);
    CHECK(source.find(".unroll(r_x)") != std::string::npos);
    const std::optional<std::string> error = lowering_error({out}, strata::testing::cuda_target());
    CHECK_MESSAGE(!error.has_value(), error.value_or(""));
}
