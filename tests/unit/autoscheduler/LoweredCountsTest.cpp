// count_lowered on hand-built Stmts: what the lowered-code check counts
// when a guard's outcome depends on the block, sampled rather than
// enumerated.
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
