// K-tiling end to end on a matrix product whose operands are read through
// pure Funcs (lhs, rhs): a root reduction split into chunks of its RVar
// (StageChoice::reduction_chunk) with the operands Staged once per block
// and chunk in shared memory, and each chunk's partial results kept per
// thread in registers (an rfactor() intermediate). Checks where Staged may
// go, the chunk boxes and storage KernelGeometry derives, the directives
// the writer emits, and that Halide's lowered code computes, allocates and
// moves what the Featurizer priced; and, scheduled by hand, the form the
// writer follows, pinned down on Halide 21.
#include "Featurizer.h"
#include "KernelGeometry.h"
#include "LoweredCheck.h"
#include "LoweredCounts.h"
#include "Schedule.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"
#include "StagedMatMulPipeline.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <tuple>

using namespace strata::autoscheduler;
using strata::testing::id_of;
using strata::costmodel::GpuSpec;
using strata::testing::StagedMatMul;

namespace {

constexpr int kSize = 512;

const GpuSpec &a100() { return GpuSpec::by_name("a100"); }

// 16×16 threads with a 4×4 tile each (64×64 outputs per block), compact
// unless said otherwise.
StageChoice tiled(int64_t chunk = 0, bool compact = true) {
    StageChoice c;
    c.tiling = GpuTiling::uniform({1, 1}, {16, 16}, {4, 4}, compact);
    c.reduction_chunk = chunk;
    return c;
}

// product at root with its update in chunks of 32; lhs and rhs staged.
Schedule k_tiled(const FunctionDAG &dag) {
    Schedule s(dag);
    const int product = id_of(dag, "product");
    s.set(id_of(dag, "out"), FuncChoice::root({tiled()}));
    s.set(product, FuncChoice::root({tiled(), tiled(32)}));
    s.set(id_of(dag, "lhs"), FuncChoice::at(Placement::Staged, product, 1));
    s.set(id_of(dag, "rhs"), FuncChoice::at(Placement::Staged, product, 1));
    complete_with_defaults(s, a100());
    return s;
}

// The lowered check's report when Halide compiles `pipeline` (scheduled
// already) for CUDA, as `name`.
nlohmann::json lowered_report(Halide::Pipeline pipeline, PricedSchedule priced,
                              const std::vector<Halide::Argument> &args, const std::string &name) {
    const std::string report_path = strata::testing::temp_path("strata_" + name + "_lowered.json");
    std::remove(report_path.c_str());
    install_lowered_check(pipeline, std::move(priced), report_path);
    pipeline.compile_to_module(args, name, strata::testing::cuda_target());
    std::ifstream in(report_path);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

std::string all_source(const FunctionDAG &dag, const ScheduleWriter &writer) {
    std::map<std::string, int> index;
    for (const Node *n : dag.funcs()) index[n->name] = int(index.size());
    // "product$4_intm" prints as product_4_intm.
    return std::regex_replace(strata::testing::without_unique_suffixes(writer.source(index)),
                              std::regex("_[0-9]+_intm\\b"), "_intm");
}

}  // namespace

TEST_CASE("a Func is staged only in a chunked reduction that alone reads it") {
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    const int out = id_of(dag, "out"), product = id_of(dag, "product"), lhs = id_of(dag, "lhs");
    Schedule s(dag);
    s.set(out, FuncChoice::root({tiled()}));
    s.set(product, FuncChoice::root({tiled(), tiled()}));
    // Not chunked: nothing to stage per chunk.
    CHECK_FALSE(s.can_place(lhs, Placement::Staged, product, 1));
    CHECK(s.can_place(lhs, Placement::Block, product, 1));
    s.set(product, FuncChoice::root({tiled(), tiled(32)}));
    CHECK(s.can_place(lhs, Placement::Staged, product, 1));
    // The tile is loaded at the chunk loop, which only the update stage has.
    CHECK_FALSE(s.can_place(lhs, Placement::Staged, out, 0));
    // A strided thread's partial results would span its block's tile.
    s.set(product, FuncChoice::root({tiled(), tiled(32, /*compact=*/false)}));
    CHECK_FALSE(s.can_place(lhs, Placement::Staged, product, 1));
    CHECK_FALSE(s.runs_in_chunks(product, 1));
}

TEST_CASE("a reduction runs in chunks only where Halide can factor out each chunk's partial results") {
    // Not provably associative: each step scales what came before.
    Halide::ImageParam a(Halide::Float(32), 2, "a");
    Halide::Func decay("decay");
    Halide::Var x("x");
    Halide::RDom r(0, 512, "r");
    decay(x) = 0.0f;
    decay(x) = decay(x) * 0.5f + a(x, r);
    decay.set_estimates({{0, 4096}});
    a.set_estimates({{0, 4096}, {0, 512}});
    FunctionDAG dag({decay});
    const Stage &update = *dag.nodes()[id_of(dag, "decay")]->stages[1];
    const GpuTiling tiling = GpuTiling::uniform({1}, {128}, {1});
    CHECK_FALSE(chunkable(dag, update, tiling, 32));

    StagedMatMul m(kSize);
    FunctionDAG product_dag({m.out});
    const Stage &product = *product_dag.nodes()[id_of(product_dag, "product")]->stages[1];
    CHECK(chunkable(product_dag, product, tiled().tiling, 32));
    CHECK(chunkable(product_dag, product, tiled().tiling, kSize / 2));
    CHECK_FALSE(chunkable(product_dag, product, tiled().tiling, kSize));  // one chunk is no K-tiling
    CHECK_FALSE(chunkable(product_dag, product, tiled(0, /*compact=*/false).tiling, 32));
    CHECK(chunkable(product_dag, product, GpuTiling::uniform({1, 1}, {16, 16}, {1, 1}, false), 32));
}

TEST_CASE("a staged tile covers one chunk of the block's reduction, in shared memory") {
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    const Schedule s = k_tiled(dag);
    const int product = id_of(dag, "product");
    const KernelScope scope = KernelScope::collect(dag, s, product, 1);
    const KernelGeometry g(dag, s, scope);
    REQUIRE(g.chunk_loop() >= 0);
    CHECK(g.chunks() == kSize / 32);
    CHECK(g.chunk_box()[g.chunk_loop()].extent == 32);
    // lhs(k, y): 32 k by the block's 64 rows; rhs(x, k): 64 columns by 32 k.
    const Region &l = g.storage_extents(id_of(dag, "lhs")), &r = g.storage_extents(id_of(dag, "rhs"));
    REQUIRE(l.size() == 2);
    REQUIRE(r.size() == 2);
    CHECK(l[0].extent == 32);
    CHECK(l[1].extent == 64);
    CHECK(r[0].extent == 64);
    CHECK(r[1].extent == 32);
    CHECK(g.shared_bytes_per_block() == 2 * 32 * 64 * 4);
    // A thread's partial results: its 4×4 tile, for one chunk.
    CHECK(g.partials_extents() == std::vector<int64_t>{4, 4, 1});
}

TEST_CASE("the writer factors out each chunk's partial results per thread and stages the operands per chunk") {
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    const Schedule s = k_tiled(dag);
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const std::string source = all_source(dag, writer);
    INFO(source);
    auto has = [&](const std::string &text) { return source.find(text) != std::string::npos; };
    CHECK(has(".split(k_x, k_x_o, k_x_i, 32, TailStrategy::GuardWithIf)"));
    CHECK(has("Func product_intm = product.update(0).rfactor({{k_x_o, k_x_chunk}});"));
    // The product: its tile, the threads, the chunks, the blocks.
    CHECK(has(".reorder(x_s, y_s, x_t, y_t, k_x_o, x_b, y_b)"));
    // The partials: per thread in registers, the tile unrolled inside the chunk's iterations.
    CHECK(has("product_intm\n        .compute_at(product, x_t)"));
    CHECK(has(".bound_storage(x, 4)"));
    CHECK(has(".bound_storage(k_x_chunk, 1)"));
    CHECK(has(".store_in(MemoryType::Register)"));
    CHECK(has("product_intm.update(0)\n        .reorder(x, y, k_x_chunk, k_x_i)"));
    // The operands: per chunk, in shared memory.
    CHECK(has(".compute_at(product, k_x_o)"));
    CHECK(has(".store_in(MemoryType::GPUShared)"));
    // Every handle is taken before rfactor() renumbers get_func().
    CHECK(source.rfind("pipeline.get_func(") < source.find(".rfactor("));
}

TEST_CASE("Halide's lowered K-tiled product computes, allocates and moves what the Featurizer priced") {
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    const Schedule s = k_tiled(dag);
    Featurizer featurizer(dag, a100());
    const ScheduleFeaturization features = featurizer.featurize(s);
    REQUIRE(features.legal);
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const nlohmann::json report =
        lowered_report(Halide::Pipeline(m.out), priced_schedule(dag, s, features, a100(), writer.made_funcs()), {m.a, m.b},
                       "k_tiled");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    // The product is stored once per chunk; the partials stay in registers
    // (the check fails a Func priced in registers and allocated elsewhere).
    const auto kernel = std::find_if(report["kernels"].begin(), report["kernels"].end(),
                                     [](const nlohmann::json &k) {
                                         return strata::testing::without_unique_suffixes(k["name"]) == "product.s1";
                                     });
    REQUIRE(kernel != report["kernels"].end());
    const double chunk_stores = double(kSize) * kSize * (kSize / 32) * 4;
    CHECK((*kernel)["global_store_bytes"]["lowered"].get<double>() == doctest::Approx(chunk_stores));
    CHECK((*kernel)["global_store_bytes"]["priced"].get<double>() == doctest::Approx(chunk_stores));
    const auto &allocations = (*kernel)["allocations"];
    CHECK(std::any_of(allocations.begin(), allocations.end(), [](const nlohmann::json &a) {
        return strata::testing::without_unique_suffixes(a["func"]) == "product_intm" && a["memory"] == "Register";
    }));
    // Its points: the k steps, and per chunk an initial value and an add.
    const double points = double(kSize) * kSize * (kSize + 2 * (kSize / 32));
    int products = 0;
    for (const auto &[func, counts] : (*kernel)["points"].items()) {
        if (strata::testing::without_unique_suffixes(func) != "product") continue;
        ++products;
        CHECK(counts["lowered"].get<double>() == doctest::Approx(points));
        CHECK(counts["priced"].get<double>() == doctest::Approx(points));
    }
    CHECK(products == 1);
}

TEST_CASE("Halide 21 keeps a per-chunk rfactor intermediate's accumulators in registers") {
    // The form the writer emits for a chunked reduction, pinned down on
    // Halide 21 by hand: the chunked RVar split, its chunk index made a
    // pure dimension of an intermediate (rfactor), that intermediate
    // computed per thread in registers inside the chunk loop (its guards
    // are then harmless: a register allocation is promoted whatever the
    // control flow), and the product accumulating one chunk's partial sums
    // per chunk. Accumulating into the product itself inside the chunk, the
    // unrolled copies are each guarded (the extents are estimates) and LLVM
    // keeps no guarded store in a register: every copy went through global
    // memory at every k. A block-level register allocation would not do:
    // Halide 21 gives every thread a whole copy of it. Lowered: the
    // product's stores run once per chunk, the intermediate lives in registers.
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    Halide::Var x = m.x, y = m.y, u("u"), xb("xb"), yb("yb"), xi("xi"), yi("yi"), xt("xt"), yt("yt"), xs("xs"),
                ys("ys");
    Halide::RVar k = m.product.rvars()[0], ko("ko"), ki("ki");
    using Halide::TailStrategy;
    auto tile = [&](Halide::Stage s) {
        s.split(x, xb, xi, 64, TailStrategy::GuardWithIf)
            .split(y, yb, yi, 64, TailStrategy::GuardWithIf)
            .split(xi, xt, xs, 4, TailStrategy::GuardWithIf)
            .split(yi, yt, ys, 4, TailStrategy::GuardWithIf);
    };
    m.out.compute_root().gpu_tile(x, y, xb, yb, xi, yi, 16, 16);
    m.product.update().split(k, ko, ki, 32);
    Halide::Func intm = m.product.update().rfactor(ko, u);
    m.product.compute_root();
    tile(m.product);
    m.product.reorder(xs, ys, xt, yt, xb, yb).gpu_blocks(xb, yb).gpu_threads(xt, yt).unroll(xs).unroll(ys);
    tile(m.product.update());
    m.product.update()
        .reorder(xs, ys, xt, yt, ko, xb, yb)
        .gpu_blocks(xb, yb)
        .gpu_threads(xt, yt)
        .unroll(xs)
        .unroll(ys);
    intm.compute_at(m.product, xt)
        .store_in(Halide::MemoryType::Register)
        .bound_storage(x, 4)
        .bound_storage(y, 4)
        .bound_storage(u, 1)
        .unroll(x)
        .unroll(y)
        .unroll(u);
    intm.update().reorder(x, y, u, ki).unroll(x).unroll(y).unroll(u);
    for (auto [operand, width, height] : {std::tuple(m.lhs, 32, 64), std::tuple(m.rhs, 64, 32)}) {
        Halide::Var ox("ox"), oy("oy");
        operand.compute_at(m.product, ko)
            .store_in(Halide::MemoryType::GPUShared)
            .bound_storage(x, width)
            .bound_storage(y, height)
            .split(x, ox, xi, 16)
            .split(y, oy, yi, 16)
            .reorder(xi, yi, ox, oy)
            .gpu_threads(xi, yi);
    }

    // Count what Halide lowered, kernel by kernel.
    struct Capture : Halide::Internal::IRMutator {
        std::map<std::string, Halide::Expr> values;
        std::map<std::string, int> funcs;
        LoweredCounts counts;
        using IRMutator::mutate;
        Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &s) override {
            counts = count_lowered(s, values, funcs);
            return s;
        }
    };
    auto *capture = new Capture;
    capture->values = values_from_estimates(dag);
    for (const Node *n : dag.funcs()) capture->funcs[n->name] = 1;
    Halide::Pipeline pipeline(m.out);
    pipeline.add_custom_lowering_pass(capture);  // the pipeline owns it
    pipeline.compile_to_module({m.a, m.b}, "rfactored", strata::testing::cuda_target());
    const auto kernel = std::find_if(capture->counts.kernels.begin(), capture->counts.kernels.end(),
                                     [](const LoweredKernel &k) {
                                         return strata::testing::without_unique_suffixes(k.name) == "product.s1";
                                     });
    REQUIRE(kernel != capture->counts.kernels.end());
    const double chunk_stores = double(kSize) * kSize * (kSize / 32) * 4;
    CHECK(kernel->global_store_bytes == doctest::Approx(chunk_stores));
    const auto in_registers = std::find_if(kernel->allocations.begin(), kernel->allocations.end(),
                                           [&](const LoweredAllocation &a) {
                                               return a.func.find(intm.name()) == 0 && a.memory == "Register";
                                           });
    CHECK(in_registers != kernel->allocations.end());
}

TEST_CASE("a chunked kernel with fused block dimensions keeps its partials in registers") {
    // A batched product over a reduction of symbolic extent (attention's
    // scores): four pure dimensions, so the writer fuses the two batch
    // block loops into one. Halide's bounds of the partials then name the
    // fused block index two ways and prove no constant extent for them,
    // which a register buffer needs, unless the writer bounds the one-point
    // dimensions outright (bound_extent); lowering failed before it did.
    Halide::ImageParam a(Halide::Float(32), 4, "a"), b(Halide::Float(32), 4, "b");
    Halide::Func lhs("lhs"), rhs("rhs"), product("product"), out("out");
    Halide::Var x("x"), y("y"), c("c"), n("n");
    Halide::RDom k(0, a.dim(0).extent(), "k");
    lhs(x, y, c, n) = a(x, y, c, n);
    rhs(x, y, c, n) = b(x, y, c, n);
    product(x, y, c, n) = 0.0f;
    product(x, y, c, n) += lhs(k, y, c, n) * rhs(k, x, c, n);
    out(x, y, c, n) = product(x, y, c, n);
    a.set_estimates({{0, 64}, {0, 500}, {0, 8}, {0, 4}});
    b.set_estimates({{0, 64}, {0, 500}, {0, 8}, {0, 4}});
    out.set_estimates({{0, 500}, {0, 500}, {0, 8}, {0, 4}});
    FunctionDAG dag({out});
    Schedule s(dag);
    const int p = id_of(dag, "product");
    auto tiling = [](int64_t chunk) {
        StageChoice choice;
        choice.tiling = GpuTiling::uniform({1, 1, 1, 1}, {16, 16, 1, 1}, {4, 4, 1, 1}, /*compact=*/true);
        choice.reduction_chunk = chunk;
        return choice;
    };
    s.set(id_of(dag, "out"), FuncChoice::root({tiling(0)}));
    s.set(p, FuncChoice::root({tiling(0), tiling(8)}));
    s.set(id_of(dag, "lhs"), FuncChoice::at(Placement::Staged, p, 1));
    s.set(id_of(dag, "rhs"), FuncChoice::at(Placement::Staged, p, 1));
    complete_with_defaults(s, a100());
    Featurizer featurizer(dag, a100());
    const ScheduleFeaturization features = featurizer.featurize(s);
    REQUIRE(features.legal);
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const std::string source = all_source(dag, writer);
    INFO(source);
    CHECK(source.find(".fuse(c, n, c_n)") != std::string::npos);
    CHECK(source.find(".bound_extent(c, 1)") != std::string::npos);
    CHECK(source.find(".bound_extent(x, 1)") == std::string::npos);  // a 4-point tile dimension keeps its guard
    const nlohmann::json report = lowered_report(
        Halide::Pipeline(out), priced_schedule(dag, s, features, a100(), writer.made_funcs()), {a, b}, "fused_chunks");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
}

TEST_CASE("a chunked kernel run unchunked loses its staged tiles and its chunk length") {
    // What the autoscheduler does where Halide rejects a chunked kernel's
    // partial results (Autoscheduler.cpp, repair_by_lowering).
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    Schedule s = k_tiled(dag);
    const int product = id_of(dag, "product");
    REQUIRE(s.runs_in_chunks(product, 1));
    CHECK(run_unchunked(s, product, 1, a100()) == 2);
    CHECK_FALSE(s.runs_in_chunks(product, 1));
    CHECK(s.choice(product).stages[1].reduction_chunk == 0);
    for (const char *operand : {"lhs", "rhs"}) {
        INFO(operand);
        CHECK_FALSE(is_member(s.choice(id_of(dag, operand)).placement));
    }
    // The rest of the kernel's choice stays: its tiling, and out's.
    CHECK(s.choice(product).stages[1].tiling == tiled().tiling);
    CHECK(s.choice(id_of(dag, "out")).placement == Placement::Root);
    // Unchunked already: nothing to move.
    CHECK(run_unchunked(s, product, 1, a100()) == 0);
}
