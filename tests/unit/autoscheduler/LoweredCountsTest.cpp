// count_lowered on hand-built Stmts: what the lowered-code check counts
// when a guard's outcome depends on the block, sampled rather than
// enumerated, and which accumulators it takes to stay in registers across
// a serial loop when some of their stores are guarded or a symbolic stride
// apart (and across the runs of one partitioned loop), and which loads are
// one: the same address by the same expression, lets expanded; and the
// shapes values_from_estimates gives the buffers a lowered Stmt reads.
#include "LoweredCounts.h"

#include <doctest/doctest.h>

using namespace Halide;
using namespace Halide::Internal;
using strata::autoscheduler::count_lowered;
using strata::autoscheduler::LoweredCounts;

namespace {

Stmt gpu_loop(const std::string &name, int extent, ForType type, Stmt body) {
    return For::make(name, 0, extent, type, Partition::Auto, DeviceAPI::CUDA, std::move(body));
}

}  // namespace

TEST_CASE("a guard periodic in a fused block index is not aliased by the sampling") {
    // 102400 blocks of 64 threads: the block index fuses a two-tile x loop
    // with everything else, as Halide's fuse() leaves it (x tile = v % 2),
    // and the second x tile holds 36 of 64 points. Too many combinations to
    // enumerate: the blocks are sampled, and samples at the middles of
    // 100-block buckets would all land on even v, the first x tile.
    const std::string block = "f.s0.v.block_id_x", thread = "f.s0.t.thread_id_x";
    const Expr v = Variable::make(Int(32), block), t = Variable::make(Int(32), thread);
    const Expr x = (v % 2) * 64 + t;
    const Stmt store = Store::make("f", 1.0f, v * 128 + x, Parameter(), const_true(), ModulusRemainder());
    const Stmt guarded = IfThenElse::make(x < 100, store);
    const Stmt kernel = gpu_loop(block, 102400, ForType::GPUBlock, gpu_loop(thread, 64, ForType::GPUThread, guarded));
    const LoweredCounts counts = count_lowered(kernel, {}, {{"f", 1}});
    REQUIRE(counts.kernels.size() == 1);
    const double exact = 102400 / 2 * (64.0 + 36.0);
    CHECK(counts.kernels[0].points.at("f") == doctest::Approx(exact).epsilon(0.02));
}

TEST_CASE("loops whose extents move together with the block are counted by the product, not the means") {
    // A triangle computed per block, as a causal mask narrows a per-block
    // member: block b (of 8) runs b + 1 rows of b + 1 points, and a block
    // whose row extent comes out negative runs none. The product of the
    // mean extents (4.5 x 4.5 x 8 = 162) is not what runs: 1 + 4 + ... + 64.
    const std::string block = "f.s0.b.block_id_x";
    const Expr b = Variable::make(Int(32), block);
    const Stmt store = Store::make("f", 1.0f, Variable::make(Int(32), "f.s0.x"), Parameter(), const_true(),
                                   ModulusRemainder());
    const Stmt columns = For::make("f.s0.x", 0, b + 1, ForType::Serial, Partition::Auto, DeviceAPI::None, store);
    const Stmt rows = For::make("f.s0.y", 0, b + 1, ForType::Serial, Partition::Auto, DeviceAPI::None, columns);
    const Stmt none_past = For::make("f.s0.z", 0, 3 - b, ForType::Serial, Partition::Auto, DeviceAPI::None, rows);
    const LoweredCounts counts = count_lowered(gpu_loop(block, 8, ForType::GPUBlock, rows), {}, {{"f", 1}});
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].points.at("f") == doctest::Approx(204));
    // Blocks 0..2 run 3 - b copies of their triangle; the others none.
    const LoweredCounts clipped = count_lowered(gpu_loop(block, 8, ForType::GPUBlock, none_past), {}, {{"f", 1}});
    REQUIRE(clipped.kernels.size() == 1);
    CHECK(clipped.kernels[0].points.at("f") == doctest::Approx(3 * 1 + 2 * 4 + 1 * 9));
}

TEST_CASE("a loop inside a branch is counted over the iterations that take the branch") {
    // Halide gives the last blocks of a split reduction a branch of their
    // own with fewer steps (fuzz seed 3312): blocks 0..3 run 3 steps,
    // blocks 4..7 run 7 - b. Averaged over every block, the second loop's
    // extent came to 3.5 a block (26 stores, not 12 + 6).
    const std::string block = "f.s1.b.block_id_x";
    const Expr b = Variable::make(Int(32), block);
    const Stmt store = Store::make("f", 1.0f, b * 8 + Variable::make(Int(32), "f.s1.r"), Parameter(), const_true(),
                                   ModulusRemainder());
    auto steps = [&](const Expr &extent) {
        return For::make("f.s1.r", 0, extent, ForType::Serial, Partition::Auto, DeviceAPI::None, store);
    };
    const Stmt branches = IfThenElse::make(b < 4, steps(3), steps(7 - b));
    const LoweredCounts counts = count_lowered(gpu_loop(block, 8, ForType::GPUBlock, branches), {}, {{"f", 1}});
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].points.at("f") == doctest::Approx(4 * 3 + 3 + 2 + 1));
}

namespace {

// One block of 32 threads, each accumulating into f over a serial loop of 64
// steps: a first unguarded copy at f[t] and a second, guarded one at
// `second_address`.
LoweredCounts accumulate_two_copies(const Expr &second_address) {
    const std::string block = "f.s1.v.block_id_x", thread = "f.s1.t.thread_id_x", k = "f.s1.k";
    const Expr t = Variable::make(Int(32), thread), n = Variable::make(Int(32), "n");
    auto accumulate = [&](const Expr &address) {
        const Expr old = Load::make(Float(32), "f", address, Buffer<>(), Parameter(), const_true(), ModulusRemainder());
        return Store::make("f", old + 1.0f, address, Parameter(), const_true(), ModulusRemainder());
    };
    const Stmt body = Block::make(accumulate(t), IfThenElse::make(t + 32 < n, accumulate(second_address)));
    const Stmt loop = For::make(k, 0, 64, ForType::Serial, Partition::Auto, DeviceAPI::None, body);
    const Stmt kernel = gpu_loop(block, 1, ForType::GPUBlock, gpu_loop(thread, 32, ForType::GPUThread, loop));
    return count_lowered(LetStmt::make("n", 48, kernel), {}, {{"f", 1}});
}

}  // namespace

TEST_CASE("a guarded unrolled accumulator of its own keeps the whole buffer out of registers") {
    // Two accumulators per thread, the second guarded (a partial tile):
    // LLVM may not add the second's store where the guard fails, and it
    // cannot tell the two addresses apart, so both are loaded and stored
    // at each of the 64 steps: 32 + 16 threads × 64 × 4 bytes.
    const LoweredCounts counts = accumulate_two_copies(Variable::make(Int(32), "f.s1.t.thread_id_x") + 32);
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].global_store_bytes == doctest::Approx((32 + 16) * 64 * 4.0));
    CHECK(counts.kernels[0].global_load_bytes == doctest::Approx((32 + 16) * 64 * 4.0));
}

TEST_CASE("a guarded tap into an accumulator stored unguarded too stays in a register") {
    // The guarded copy adds a tail tap to the same element the unguarded
    // one accumulates: that element is stored at every step anyway, so LLVM
    // keeps it in a register across the loop (hist's PTX): loaded and
    // stored once per thread, not per step. The guarded copy's load is the
    // unguarded one's (it dominates the branch), and so is its store, made
    // once after the loop for the element both copies keep: 32 × 4 bytes
    // each, as in the PTX (counted 48 × 4 for the stores before the
    // elements a loop keeps were shared across its body).
    const LoweredCounts counts = accumulate_two_copies(Variable::make(Int(32), "f.s1.t.thread_id_x"));
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].global_store_bytes == doctest::Approx(32 * 4.0));
    CHECK(counts.kernels[0].global_load_bytes == doctest::Approx(32 * 4.0));
}

namespace {

// One block of 32 threads, each accumulating two elements of f, unguarded,
// over a serial loop of 64 steps: f[t] and f[t + `offset`], read through a
// let as Halide's unrolled copies are.
LoweredCounts accumulate_two_unguarded(const Expr &offset) {
    const std::string thread = "f.s1.t.thread_id_x";
    const Expr t = Variable::make(Int(32), thread);
    auto accumulate = [&](const Expr &address) {
        const Expr old = Load::make(Float(32), "f", address, Buffer<>(), Parameter(), const_true(), ModulusRemainder());
        return Store::make("f", old + 1.0f, address, Parameter(), const_true(), ModulusRemainder());
    };
    const Expr base = Variable::make(Int(32), "f.base");
    const Stmt body = LetStmt::make("f.base", t * 4, Block::make(accumulate(base), accumulate(base + offset)));
    const Stmt loop = For::make("f.s1.k", 0, 64, ForType::Serial, Partition::Auto, DeviceAPI::None, body);
    const Stmt kernel =
        gpu_loop("f.s1.v.block_id_x", 1, ForType::GPUBlock, gpu_loop(thread, 32, ForType::GPUThread, loop));
    return count_lowered(kernel, {}, {{"f", 1}});
}

}  // namespace

TEST_CASE("accumulators a symbolic stride apart stay in memory; a constant offset apart, in registers") {
    // At a constant offset LLVM tells the two elements apart and keeps
    // both in registers across the loop: 2 x 32 x 4 bytes each way.
    const LoweredCounts apart = accumulate_two_unguarded(1);
    REQUIRE(apart.kernels.size() == 1);
    CHECK(apart.kernels[0].global_load_bytes == doctest::Approx(2 * 32 * 4.0));
    CHECK(apart.kernels[0].global_store_bytes == doctest::Approx(2 * 32 * 4.0));
    // A row stride it cannot see may be zero, so the two may be one
    // element: both are loaded and stored at every step (Anderson2021's
    // attention scores, a 4x4 tile across rows: 16 ld.global and 16
    // st.global in the PTX's reduction loop), 2 x 32 x 64 x 4 bytes.
    const LoweredCounts aliased = accumulate_two_unguarded(Variable::make(Int(32), "f.stride.1"));
    REQUIRE(aliased.kernels.size() == 1);
    CHECK(aliased.kernels[0].global_load_bytes == doctest::Approx(2 * 32 * 64 * 4.0));
    CHECK(aliased.kernels[0].global_store_bytes == doctest::Approx(2 * 32 * 64 * 4.0));
}

TEST_CASE("an accumulator sharing its buffer with another Func's reads is loaded once but stored at every step") {
    // Halide puts a kernel's heap Funcs in one buffer: the accumulator at
    // f[t] and, 1024 elements on, the values the reduction reads, f[32·k +
    // t + 1024]. No store but the accumulator's own may write f[t], so LLVM
    // loads it once; the reads of the other part may read it (the offset
    // depends on k), so it stores it at every step, as the PTX of
    // Mullapudi2016's depthwise_separable_conv does: 32 x 4 bytes of it
    // loaded, 32 x 64 x 4 stored, and the other part loaded at each step.
    const std::string thread = "f.s1.t.thread_id_x", k = "f.s1.k";
    const Expr t = Variable::make(Int(32), thread);
    auto load = [](const Expr &address) {
        return Load::make(Float(32), "f", address, Buffer<>(), Parameter(), const_true(), ModulusRemainder());
    };
    const Expr read = load(Variable::make(Int(32), k) * 32 + t + 1024);
    const Stmt accumulate = Store::make("f", load(t) + read, t, Parameter(), const_true(), ModulusRemainder());
    const Stmt loop = For::make(k, 0, 64, ForType::Serial, Partition::Auto, DeviceAPI::None, accumulate);
    const Stmt kernel =
        gpu_loop("f.s1.v.block_id_x", 1, ForType::GPUBlock, gpu_loop(thread, 32, ForType::GPUThread, loop));
    const LoweredCounts counts = count_lowered(kernel, {}, {{"f", 1}});
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].global_load_bytes == doctest::Approx((32 + 32 * 64) * 4.0));
    CHECK(counts.kernels[0].global_store_bytes == doctest::Approx(32 * 64 * 4.0));
}

namespace {

// One block of 32 threads accumulating into f[t] over a reduction loop
// Halide has partitioned into three runs of 3, 12 and 3 steps (a padded
// input's border, interior, border), each its own loop; `between` runs
// between the first two.
LoweredCounts accumulate_in_three_runs(const Stmt &between) {
    const std::string thread = "f.s1.t.thread_id_x";
    const Expr t = Variable::make(Int(32), thread);
    const Expr old = Load::make(Float(32), "f", t, Buffer<>(), Parameter(), const_true(), ModulusRemainder());
    const Stmt accumulate = Store::make("f", old + 1.0f, t, Parameter(), const_true(), ModulusRemainder());
    auto run = [&](int steps) {
        return For::make("f.s1.r", 0, steps, ForType::Serial, Partition::Auto, DeviceAPI::None, accumulate);
    };
    const Stmt runs = between.defined() ? Block::make({run(3), between, run(12), run(3)})
                                        : Block::make({run(3), run(12), run(3)});
    const Stmt kernel = gpu_loop("f.s1.v.block_id_x", 1, ForType::GPUBlock, gpu_loop(thread, 32, ForType::GPUThread, runs));
    return count_lowered(kernel, {}, {{"f", 1}});
}

}  // namespace

TEST_CASE("loops of one body that keep the same accumulator share its load and its store") {
    // LLVM loads f[t] before the first run, forwards its value from one
    // run to the next and stores it after the last: 32 x 4 bytes each way,
    // as the PTX of fuzz seed 3255 shows (one ld.global and one st.global
    // around three loops), not once per run (3 x 32 x 4).
    const LoweredCounts shared = accumulate_in_three_runs(Stmt());
    REQUIRE(shared.kernels.size() == 1);
    CHECK(shared.kernels[0].global_load_bytes == doctest::Approx(32 * 4.0));
    CHECK(shared.kernels[0].global_store_bytes == doctest::Approx(32 * 4.0));
    // A store to f between the runs at an address no loop keeps (f[t + 32])
    // may overwrite the kept element: the runs after it load and store it
    // again.
    const Expr t = Variable::make(Int(32), "f.s1.t.thread_id_x");
    const LoweredCounts interrupted =
        accumulate_in_three_runs(Store::make("f", 0.0f, t + 32, Parameter(), const_true(), ModulusRemainder()));
    REQUIRE(interrupted.kernels.size() == 1);
    CHECK(interrupted.kernels[0].global_load_bytes == doctest::Approx(2 * 32 * 4.0));
    CHECK(interrupted.kernels[0].global_store_bytes == doctest::Approx(3 * 32 * 4.0));
    // So may one inside a branch between them (made by 16 of the threads).
    const LoweredCounts in_branch = accumulate_in_three_runs(
        IfThenElse::make(t < 16, Store::make("f", 0.0f, t + 32, Parameter(), const_true(), ModulusRemainder())));
    REQUIRE(in_branch.kernels.size() == 1);
    CHECK(in_branch.kernels[0].global_load_bytes == doctest::Approx(2 * 32 * 4.0));
    CHECK(in_branch.kernels[0].global_store_bytes == doctest::Approx((2 * 32 + 16) * 4.0));
}

TEST_CASE("a load that dominates a branch serves the branch; one the branch may overwrite does not") {
    // out[t] = in[t] + in[t + 1]; if (t < 16) { out[t] += in[t + 1] + in[t + 2]; }
    // if (t < 8) { in[t] = 0; out[t] += in[t] }, over 32 threads. The first
    // branch loads in[t + 2] only: in[t + 1] is in a register already, and
    // so is out[t], just stored. The second stores to in, so its in[t] is
    // its own; and the first may have changed out[t], so it reloads it.
    using namespace Halide::Internal;
    const Expr t = Variable::make(Int(32), "f.s0.t.thread_id_x");
    auto in = [&](Expr i) { return Load::make(Float(32), "in", i, Buffer<>(), Parameter(), const_true(), ModulusRemainder()); };
    auto out = [&](Expr value) { return Store::make("out", value, t, Parameter(), const_true(), ModulusRemainder()); };
    const Expr out_t = Load::make(Float(32), "out", t, Buffer<>(), Parameter(), const_true(), ModulusRemainder());
    const Stmt body = Block::make(
        {out(in(t) + in(t + 1)),
         IfThenElse::make(t < 16, out(out_t + in(t + 1) + in(t + 2))),
         IfThenElse::make(t < 8, Block::make(Store::make("in", 0.0f, t, Parameter(), const_true(), ModulusRemainder()),
                                             out(out_t + in(t))))});
    const Stmt kernel = For::make("f.s0.b.block_id_x", 0, 1, ForType::GPUBlock, Partition::Auto, DeviceAPI::CUDA,
                                  For::make("f.s0.t.thread_id_x", 0, 32, ForType::GPUThread, Partition::Auto,
                                            DeviceAPI::CUDA, body));
    const LoweredCounts counts = count_lowered(kernel, {}, {{"out", 1}});
    REQUIRE(counts.kernels.size() == 1);
    // in[t], in[t + 1] by all 32; in[t + 2] by 16; in[t] again and out[t] by 8.
    CHECK(counts.kernels[0].global_load_bytes == doctest::Approx((32 * 2 + 16 + 8 * 2) * 4.0));
}

TEST_CASE("two addresses equal only at the estimated stride are two loads; one reached through a let is one") {
    // out[t] = in[t*E + E] + in[(t + 1)*E] + in[k] + in[t*E + E], k a let of
    // t*E + E, over 32 threads, E = in.stride.1 estimated at 1: the second
    // address equals the first only once E is known, and LLVM, which does
    // not know it, loads both (camera_pipe's demosaic rows, `(4b + 1)·E + E`
    // against `(4b + 2)·E`: 24 loads a point in the PTX, 9 counted with E
    // bound); the let and the repeated expression are the first load again.
    using namespace Halide::Internal;
    const Expr t = Variable::make(Int(32), "f.s0.t.thread_id_x"), stride = Variable::make(Int(32), "in.stride.1");
    const Expr k = Variable::make(Int(32), "k");
    auto in = [&](Expr i) { return Load::make(Float(32), "in", i, Buffer<>(), Parameter(), const_true(), ModulusRemainder()); };
    const Expr first = t * stride + stride;
    const Stmt store = Store::make("out", in(first) + in((t + 1) * stride) + in(k) + in(t * stride + stride), t,
                                   Parameter(), const_true(), ModulusRemainder());
    const Stmt kernel = For::make("f.s0.b.block_id_x", 0, 1, ForType::GPUBlock, Partition::Auto, DeviceAPI::CUDA,
                                  For::make("f.s0.t.thread_id_x", 0, 32, ForType::GPUThread, Partition::Auto,
                                            DeviceAPI::CUDA, LetStmt::make("k", first, store)));
    const LoweredCounts counts = count_lowered(kernel, {{"in.stride.1", Expr(1)}}, {{"out", 1}});
    REQUIRE(counts.kernels.size() == 1);
    CHECK(counts.kernels[0].global_load_bytes == doctest::Approx(32 * 2 * 4.0));
}

TEST_CASE("a tuple output's buffers, one per element, have the output's estimated shape") {
    // Halide names them "<func>.0", "<func>.1"; a loop over one's extent
    // left unevaluated was counted once (a fuzz pipeline's 84 blocks as 1).
    Func pair("pair_out");
    Var x("x"), y("y");
    pair(x, y) = Tuple(x + y, x * y);
    pair.set_estimates({{0, 6}, {0, 7}});
    const strata::autoscheduler::FunctionDAG dag({pair});
    const std::map<std::string, Expr> values = strata::autoscheduler::values_from_estimates(dag);
    for (const std::string buffer : {"pair_out", "pair_out.0", "pair_out.1"}) {
        INFO(buffer);
        REQUIRE(values.count(buffer + ".extent.1"));
        CHECK(is_const(values.at(buffer + ".extent.1"), 7));
        CHECK(is_const(values.at(buffer + ".stride.1"), 6));
    }
}
