// K-tiling end to end on a matrix product whose operands are read through
// pure Funcs (lhs, rhs): a root reduction split into chunks of its RVar
// (StageChoice::reduction_chunk) with the operands Staged once per block
// and chunk in shared memory. Checks where Staged may go, the chunk boxes
// and storage KernelGeometry derives, the directives the writer emits, and
// that Halide's lowered code computes and moves what the Featurizer priced;
// then, scheduled by hand, the per-chunk rfactor form that keeps a thread's
// accumulators in registers on Halide 21 (what the writer is to emit).
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
#include <tuple>

using namespace strata::autoscheduler;
using strata::costmodel::GpuSpec;
using strata::testing::StagedMatMul;

namespace {

constexpr int kSize = 512;

const GpuSpec &a100() { return GpuSpec::by_name("a100"); }

int id_of(const FunctionDAG &dag, const std::string &given) {
    for (const Node *n : dag.funcs()) {
        if (n->name == given || n->name.rfind(given + "$", 0) == 0) return n->id;
    }
    FAIL("no Func " << given);
    return -1;
}

// 16×16 threads with a strided 4×4 tile each (64×64 outputs per block).
StageChoice tiled(int64_t chunk = 0) {
    StageChoice c;
    c.tiling = GpuTiling::uniform({1, 1}, {16, 16}, {4, 4}, /*compact=*/false);
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

std::string all_source(const FunctionDAG &dag, const ScheduleWriter &writer) {
    std::map<std::string, int> index;
    for (const Node *n : dag.funcs()) index[n->name] = int(index.size());
    return strata::testing::without_unique_suffixes(writer.source(index));
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
    // A strided thread's 4×4 points read 4 rows of lhs and 4 columns of rhs.
    CHECK(g.distinct_thread_copies(id_of(dag, "lhs")) == 4);
    CHECK(g.distinct_thread_copies(id_of(dag, "rhs")) == 4);
}

TEST_CASE("the writer runs the chunk loop outside the threads and stages the operands at it") {
    StagedMatMul m(kSize);
    FunctionDAG dag({m.out});
    const Schedule s = k_tiled(dag);
    ScheduleWriter writer(dag, s, a100());
    const std::string source = all_source(dag, writer);
    INFO(source);
    CHECK(source.find(".split(k_x, k_x_o, k_x_i, 32, TailStrategy::GuardWithIf)") != std::string::npos);
    // Serial tile innermost, then the chunk's iterations, the threads, the chunks, the blocks.
    CHECK(source.find(".reorder(x_s, y_s, k_x_i, x_t, y_t, k_x_o, x_b, y_b)") != std::string::npos);
    CHECK(source.find(".compute_at(product, k_x_o)") != std::string::npos);
    CHECK(source.find(".store_in(MemoryType::GPUShared)") != std::string::npos);
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
    Halide::Pipeline pipeline(m.out);
    const std::string report_path = strata::testing::temp_path("strata_k_tiled_lowered.json");
    std::remove(report_path.c_str());
    install_lowered_check(pipeline, priced_schedule(dag, s, features), report_path);
    pipeline.compile_to_module({m.a, m.b}, "k_tiled", strata::testing::cuda_target());
    std::ifstream in(report_path);
    REQUIRE(in.good());
    const nlohmann::json report = nlohmann::json::parse(in);
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    // Each thread's 4×4 accumulators go through global memory at every k:
    // Halide guards each unrolled copy inside the chunk's k loop (the
    // extents are estimates), and LLVM keeps no guarded store in a register.
    const auto kernel = std::find_if(report["kernels"].begin(), report["kernels"].end(),
                                     [](const nlohmann::json &k) {
                                         return strata::testing::without_unique_suffixes(k["name"]) == "product.s1";
                                     });
    REQUIRE(kernel != report["kernels"].end());
    const double step_stores = double(kSize) * kSize * kSize * 4;
    CHECK((*kernel)["global_store_bytes"]["lowered"].get<double>() == doctest::Approx(step_stores));
}

TEST_CASE("Halide 21 keeps a per-chunk rfactor intermediate's accumulators in registers") {
    // The way to register-blocked K-tiling that the guarded copies above
    // rule out (issue 10), pinned down on Halide 21 by hand before the
    // writer emits it: the chunked RVar split as now, its chunk index made a
    // pure dimension of an intermediate (rfactor), that intermediate
    // computed per thread in registers inside the chunk loop (its guards
    // are then harmless: a register allocation is promoted whatever the
    // control flow), and the product accumulating one chunk's partial sums
    // per chunk. A block-level register allocation would not do: Halide 21
    // gives every thread a whole copy of it. Lowered: the product's stores
    // run once per chunk, the intermediate lives in registers.
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
