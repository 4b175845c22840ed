// Hand-computed cases of the analytic model: each expected time is written
// out from the GPU spec's numbers and the feature values of the case.
#include "strata/costmodel/AnalyticModel.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace strata::costmodel;

namespace {

constexpr double kResident = 8;

// A stage that streams `n` floats, at full occupancy, in one whole wave.
FeatureVector streaming_stage(double n) {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    FeatureVector f{};
    f[index(Feature::Occupancy)] = 1.0;
    f[index(Feature::ActiveThreadFraction)] = 1.0;
    f[index(Feature::WaveEfficiency)] = 1.0;
    f[index(Feature::DramBytes)] = 4 * n;
    f[index(Feature::GlobalLoadSectors)] = n / 8;  // stride 1: 4 bytes × 32 lanes = 4 sectors per 32 elements
    f[index(Feature::GlobalLoadBytesUseful)] = 4 * n;
    f[index(Feature::Blocks)] = spec.sm_count * kResident;
    f[index(Feature::ResidentBlocksPerSm)] = kResident;
    return f;
}

}  // namespace

TEST_CASE("a stride-32 warp load moves 8x the sectors of a stride-1 load through L1, and the waste through L2") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    const double n = 1 << 24;
    FeatureVector coalesced = streaming_stage(n);
    FeatureVector strided = coalesced;
    strided[index(Feature::GlobalLoadSectors)] = n;   // one 32-byte sector per lane, one request per 32 lanes
    strided[index(Feature::L2Bytes)] = 28 * n;        // 32 bytes fetched per 4 used, no reuse

    const TermVector a = AnalyticModel::terms(coalesced, spec);
    const TermVector b = AnalyticModel::terms(strided, spec);
    // Same unique bytes from DRAM.
    CHECK(a[index(Term::Dram)] == doctest::Approx(4 * n / spec.dram_bandwidth_bytes_per_second));
    CHECK(b[index(Term::Dram)] == doctest::Approx(a[index(Term::Dram)]));
    // L1: one 128-byte wavefront per four sectors, one wavefront per SM per clock.
    const double per_wavefront = 1.0 / (spec.sm_count * spec.boost_clock_hz);
    CHECK(a[index(Term::Shared)] == doctest::Approx(n / 8 / 4 * per_wavefront));
    CHECK(b[index(Term::Shared)] == doctest::Approx(n / 4 * per_wavefront));
    // L2: nothing extra when coalesced; the wasted 28 bytes per element when strided.
    CHECK(a[index(Term::L2)] == doctest::Approx(0.0));
    CHECK(b[index(Term::L2)] == doctest::Approx(28 * n / spec.l2_bandwidth_bytes_per_second));
}

TEST_CASE("a 32-way bank-conflicted shared tile costs 32x the padded one") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    FeatureVector padded = streaming_stage(0);
    padded[index(Feature::SharedLoadRequests)] = 1e6;
    padded[index(Feature::SharedBankConflictWays)] = 1;
    FeatureVector conflicted = padded;
    conflicted[index(Feature::SharedBankConflictWays)] = 32;
    const double one_pass = 1e6 / (spec.sm_count * spec.boost_clock_hz);
    CHECK(AnalyticModel::terms(padded, spec)[index(Term::Shared)] == doctest::Approx(one_pass));
    CHECK(AnalyticModel::terms(conflicted, spec)[index(Term::Shared)] == doctest::Approx(32 * one_pass));
}

TEST_CASE("one block more than a full wave adds one lone block's time, once") {
    // A full wave: every SM runs 8 blocks at full occupancy (latency fully
    // hidden), so each block takes 8 block-work units and the wave 8. The
    // extra block runs alone on one SM, at 1/8 of the occupancy: with the
    // hiding that leaves, h = 0.15 + 1.7 / 8 = 0.3625, it takes 1 / h units.
    // The kernel does 1 + 1/864 waves of work in 8 + 1/h units, where one
    // wave alone takes 8: one effect, counted once (not a halved wave
    // efficiency times a separate occupancy penalty).
    const GpuSpec &spec = GpuSpec::by_name("a100");
    const double one_wave_blocks = spec.sm_count * kResident;
    FeatureVector full = streaming_stage(0);
    full[index(Feature::Flops)] = 1e9;
    FeatureVector spill = full;
    spill[index(Feature::Blocks)] = one_wave_blocks + 1;
    spill[index(Feature::Flops)] = 1e9 * (one_wave_blocks + 1) / one_wave_blocks;

    const double peak = spec.fp32_flops_per_second();
    const double h_lone = 0.15 + 1.7 / kResident;
    CHECK(AnalyticModel::terms(full, spec)[index(Term::Compute)] == doctest::Approx(1e9 / peak));
    CHECK(AnalyticModel::terms(spill, spec)[index(Term::Compute)] /
              AnalyticModel::terms(full, spec)[index(Term::Compute)] ==
          doctest::Approx((kResident + 1 / h_lone) / kResident).epsilon(1e-6));
}

TEST_CASE("half the SMs idle is half the throughput; a partial block count per SM hides less latency") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    const double sms = spec.sm_count;
    CHECK(AnalyticModel::launch_efficiency(sms * kResident, kResident, 1.0, spec) == doctest::Approx(1.0));
    CHECK(AnalyticModel::launch_efficiency(sms * kResident / 2, kResident, 1.0, spec) ==
          doctest::Approx(0.15 + 1.7 * 0.5));  // 4 of 8 blocks per SM: occupancy 0.5
    CHECK(AnalyticModel::launch_efficiency(sms / 2, kResident, 1.0, spec) ==
          doctest::Approx(0.5 * (0.15 + 1.7 / kResident)));  // one block on half the SMs
}

TEST_CASE("low occupancy hides less latency; launches add a fixed cost") {
    const GpuSpec &spec = GpuSpec::by_name("a100");
    FeatureVector high = streaming_stage(1 << 20);
    FeatureVector low = high;
    low[index(Feature::Occupancy)] = 0.125;
    CHECK(AnalyticModel::terms(low, spec)[index(Term::Dram)] > AnalyticModel::terms(high, spec)[index(Term::Dram)]);
    high[index(Feature::KernelLaunches)] = 1;
    CHECK(AnalyticModel::terms(high, spec)[index(Term::Launch)] == doctest::Approx(spec.kernel_launch_seconds));
}

TEST_CASE("as a CostModel it sums kernels and overlaps the stages of one kernel") {
    AnalyticModel model(GpuSpec::by_name("a100"));
    StageFeatures a{"a.s0", 0, streaming_stage(1 << 20)};
    StageFeatures b{"b.s0", 0, streaming_stage(1 << 20)};
    StageFeatures c{"c.s0", 1, streaming_stage(1 << 20)};
    const ScheduleFeatures fused = {a, b}, split = {a, c};
    const std::vector<double> t = model.predict({&fused, &split});
    const double one = AnalyticModel::terms(a.features, model.spec())[index(Term::Dram)];
    CHECK(t[0] == doctest::Approx(2 * one));  // DRAM terms of one kernel add (same resource)
    CHECK(t[1] == doctest::Approx(2 * one));  // two kernels run one after the other
}

TEST_CASE("a scan's chain of dependent steps bounds its kernel where the chain is longer than the traffic") {
    // iir_blur's column scan on the H200: 72 blocks of 64 threads (one
    // round), each thread walking 2559 rows; every step loads a new row, so
    // each waits for the spec's step cycles and an L1 miss.
    const GpuSpec &spec = GpuSpec::by_name("h200");
    FeatureVector scan = streaming_stage(72 * 64 * 2559.0);
    scan[index(Feature::Blocks)] = 72;
    scan[index(Feature::ResidentBlocksPerSm)] = 32;
    scan[index(Feature::Occupancy)] = 64.0 / spec.max_threads_per_sm;
    scan[index(Feature::DependentSteps)] = 2559;
    scan[index(Feature::DependentStepMisses)] = 2559;
    const double step = spec.dependent_step_cycles / spec.boost_clock_hz + spec.l1_miss_latency_seconds;
    const TermVector t = AnalyticModel::terms(scan, spec);
    CHECK(t[index(Term::Latency)] == doctest::Approx(2559 * step));
    CHECK(2559 * step == doctest::Approx(967e-6).epsilon(0.01));  // measured: 967 us (GpuSpecTable.cpp, [CHAIN])
    // A row scan misses L1 one step in eight (eight floats to a sector).
    FeatureVector row_scan = scan;
    row_scan[index(Feature::DependentStepMisses)] = 2559 / 8.0;
    CHECK(AnalyticModel::terms(row_scan, spec)[index(Term::Latency)] ==
          doctest::Approx(2559 * (spec.dependent_step_cycles / spec.boost_clock_hz +
                                  spec.l1_miss_latency_seconds / 8)));
    // hist's cdf.s1: one thread, 255 steps along a row of ints; measured 16.1 us.
    FeatureVector cdf = scan;
    cdf[index(Feature::Blocks)] = 1;
    cdf[index(Feature::DependentSteps)] = 255;
    cdf[index(Feature::DependentStepMisses)] = 255 / 8.0;
    CHECK(AnalyticModel::terms(cdf, spec)[index(Term::Latency)] == doctest::Approx(16.1e-6).epsilon(0.01));
    // Twice the blocks that fit at once: two rounds, one after the other.
    FeatureVector two_rounds = scan;
    two_rounds[index(Feature::Blocks)] = 2 * spec.sm_count * 32;
    CHECK(AnalyticModel::terms(two_rounds, spec)[index(Term::Latency)] == doctest::Approx(2 * 2559 * step));
    // The kernel takes the chain: it is longer than every throughput term.
    const AnalyticModel model(spec);
    const ScheduleFeatures one_kernel{{"f.s1", 0, scan}};
    const double traffic = std::max({t[index(Term::Compute)], t[index(Term::Dram)], t[index(Term::L2)],
                                     t[index(Term::Shared)]});
    CHECK(traffic < t[index(Term::Latency)]);
    CHECK(model.predict({&one_kernel})[0] ==
          doctest::Approx(t[index(Term::Latency)] + t[index(Term::Launch)] + t[index(Term::Sync)]));
    // Not a scan: no chain.
    CHECK(AnalyticModel::terms(streaming_stage(1e6), spec)[index(Term::Latency)] == 0);
}

TEST_CASE("a shared-memory request costs the issue slots of its warp, however few of its lanes have work") {
    // 10^6 warp requests, each an FMA's issue slot (2 FLOP) per lane: 32
    // lanes with work, or one (a stage on one thread of its block, active
    // fraction 1/1024). Either way a request takes one warp's slot; the
    // one-lane warps do 1/32 of the work in that time, not the same work
    // 32 times over.
    const GpuSpec &spec = GpuSpec::by_name("a100");
    FeatureVector full = streaming_stage(0);
    full[index(Feature::SharedLoadRequests)] = 1e6;
    FeatureVector one_lane = full;
    one_lane[index(Feature::ActiveThreadFraction)] = 1.0 / 1024;
    const double slots = 1e6 * spec.warp_size * 2 / spec.fp32_flops_per_second();
    CHECK(AnalyticModel::terms(full, spec)[index(Term::Compute)] == doctest::Approx(slots));
    CHECK(AnalyticModel::terms(one_lane, spec)[index(Term::Compute)] == doctest::Approx(slots));
}
