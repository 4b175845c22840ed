#include "Occupancy.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::costmodel::GpuSpec;

TEST_CASE("occupancy on an A100: threads, registers and shared memory each limit it") {
    const GpuSpec &a100 = GpuSpec::by_name("a100");
    // 256 threads, few registers: 2048 threads per SM → 8 blocks, full occupancy.
    Occupancy o = occupancy(a100, 256, 32, 0);
    CHECK(o.blocks_per_sm == 8);
    CHECK(o.occupancy == doctest::Approx(1.0));
    // 128 registers per thread: 65536 / (128 × 256) = 2 blocks.
    o = occupancy(a100, 256, 128, 0);
    CHECK(o.blocks_per_sm == 2);
    CHECK(o.limited_by == Occupancy::Limit::Registers);
    // 48 KB of shared memory per block: 164 KB per SM / 48 KB = 3 blocks.
    o = occupancy(a100, 128, 32, 48 * 1024);
    CHECK(o.blocks_per_sm == a100.shared_memory_per_sm / (48 * 1024));
    CHECK(o.limited_by == Occupancy::Limit::SharedMemory);
    // Too many threads per block: cannot run.
    CHECK(occupancy(a100, 2048, 32, 0).blocks_per_sm == 0);
}

TEST_CASE("a grid of exactly one wave is fully efficient; one block more wastes almost a wave") {
    const GpuSpec &a100 = GpuSpec::by_name("a100");
    const Occupancy o = occupancy(a100, 256, 32, 0);
    const int64_t one_wave = int64_t(a100.sm_count) * o.blocks_per_sm;
    CHECK(waves(a100, o, one_wave) == doctest::Approx(1.0));
    CHECK(wave_efficiency(waves(a100, o, one_wave)) == doctest::Approx(1.0));
    const double w = waves(a100, o, one_wave + 1);
    CHECK(w > 1.0);
    CHECK(wave_efficiency(w) == doctest::Approx(double(one_wave + 1) / double(2 * one_wave)));
}
