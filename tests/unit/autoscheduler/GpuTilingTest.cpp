#include "GpuTiling.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::costmodel::GpuSpec;

TEST_CASE("tiling arithmetic") {
    GpuTiling t = GpuTiling::uniform({1000, 100}, {32, 8}, {2, 1});
    CHECK(t.threads_per_block() == 256);
    CHECK(t.serial_per_thread() == 2);
    CHECK(t.thread_dims() == 2);
    CHECK(t.blocks({1000, 100}) == 16 * 13);
    CHECK(t.active_fraction({1000, 100}) == doctest::Approx(100000.0 / (1024.0 * 104.0)));
}

TEST_CASE("candidates respect the GPU's limits and give the innermost loop a warp") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    TilingOptions options;
    std::mt19937_64 rng(1);
    const std::vector<int64_t> extents = {1536, 2560, 3};
    const auto candidates = candidate_tilings(extents, spec, options, rng);
    CHECK(candidates.size() > 5);
    for (const GpuTiling &t : candidates) {
        CHECK(t.threads_per_block() <= 1024);
        CHECK(t.thread_dims() <= 3);
        CHECK(t.serial_per_thread() <= options.max_serial_per_thread);
        CHECK(t.dims[0].threads >= 16);
        CHECK(is_legal(t, extents, spec, options));
    }
}

TEST_CASE("sampling is deterministic for a seed") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    TilingOptions options;
    options.coarse = false;
    options.samples_per_group = 1;
    std::mt19937_64 a(7), b(7);
    const auto x = candidate_tilings({4096, 4096}, spec, options, a);
    const auto y = candidate_tilings({4096, 4096}, spec, options, b);
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) CHECK(x[i].key() == y[i].key());
}

TEST_CASE("small loops are not over-tiled; neighbours are one step away") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    TilingOptions options;
    CHECK_FALSE(is_legal(GpuTiling::uniform({3}, {32}, {1}), {3}, spec, options));
    CHECK(is_legal(GpuTiling::uniform({3}, {4}, {1}), {3}, spec, options));
    const GpuTiling center = GpuTiling::uniform({1024, 1024}, {32, 8}, {1, 2});
    for (const GpuTiling &n : neighbour_tilings(center, {1024, 1024}, spec, options)) {
        int changed = 0;
        for (size_t d = 0; d < 2; ++d) {
            changed += n.dims[d].threads != center.dims[d].threads;
            changed += n.dims[d].serial != center.dims[d].serial;
        }
        CHECK(changed <= 1);
    }
}

TEST_CASE("a thread's serial points along a fused block loop are told apart from those along the grid's own") {
    // Four loops: the block loops of the third and fourth share grid z.
    CHECK(GpuTiling::uniform({64, 64, 8, 4}, {16, 4, 1, 1}, {1, 1, 1, 4}).serial_along_fused_block());
    CHECK(GpuTiling::uniform({64, 64, 8, 4}, {16, 4, 1, 1}, {1, 1, 2, 1}).serial_along_fused_block());
    CHECK_FALSE(GpuTiling::uniform({64, 64, 8, 4}, {16, 4, 4, 1}, {4, 1, 1, 1}).serial_along_fused_block());
    // Three loops: nothing is fused.
    CHECK_FALSE(GpuTiling::uniform({64, 64, 8}, {16, 4, 1}, {1, 1, 4}).serial_along_fused_block());
}

TEST_CASE("a host loop launches the kernel once per point and takes no grid dimension") {
    const std::vector<int64_t> extents = {256, 256, 3, 5};
    GpuTiling t = GpuTiling::uniform(extents, {32, 8, 1, 1}, {1, 1, 1, 1});
    const GpuSpec spec = GpuSpec::by_name("a100");
    CHECK(t.launches(extents) == 1);
    CHECK(t.grid(extents, spec) == std::array<int64_t, 3>{8, 32, 15});
    CHECK(t.block_loop_fused(2));
    t.dims[3].host = true;
    CHECK(t.launches(extents) == 5);
    CHECK(t.launched_blocks(extents) == 5 * 8 * 32 * 3);  // over all launches
    CHECK(t.grid(extents, spec) == std::array<int64_t, 3>{8, 32, 3});
    CHECK_FALSE(t.block_loop_fused(2));
    CHECK_FALSE(t.block_loop_fused(3));
    CHECK(t.key() != GpuTiling::uniform(extents, {32, 8, 1, 1}, {1, 1, 1, 1}).key());
}

TEST_CASE("blocks along a reduction multiply the blocks and take the grid dimension after the pure loops'") {
    const std::vector<int64_t> extents = {128};
    GpuTiling t = GpuTiling::uniform(extents, {64}, {1});
    t.reduction_blocks = 8;
    CHECK(t.launched_blocks(extents) == 2 * 8);
    CHECK(t.grid(extents, GpuSpec::by_name("a100")) == std::array<int64_t, 3>{2, 8, 1});
    CHECK(t.key() != GpuTiling::uniform(extents, {64}, {1}).key());
}
