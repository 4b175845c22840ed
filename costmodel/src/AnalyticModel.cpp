//===- AnalyticModel.cpp - first-principles GPU stage times --------------===//
//
// Each throughput term is work / (peak rate × launch efficiency):
//   compute: FLOPs (transcendentals at the SFU rate) and memory instructions
//            (an issue slot each) over the FP32 FMA rate, also scaled by the
//            lanes that are active;
//   DRAM:    unique bytes over DRAM bandwidth;
//   L2:      bytes that miss L1 but not L2 (the featurizer's L2Bytes), over
//            L2 bandwidth;
//   shared:  the unified L1/shared-memory data path: shared warp requests ×
//            bank-conflict ways, plus the wavefronts of global requests —
//            one per 128 bytes (four sectors), and at least one per warp
//            request (a broadcast or a short row still takes a pass) — one
//            wavefront per SM per clock.
//   latency: a scan's chain of steps, each waiting for the memory the step
//            before stored (the GPU spec's cycles per step, plus its L1-miss
//            latency for the steps whose loads miss L1), once per round of
//            resident blocks: a bound that no throughput hides.
// The launch efficiency is one model of waves and latency hiding together
// (launch_efficiency()): every wave runs at the latency hiding its resident
// warps give, and the last, partial wave runs fewer blocks on fewer SMs.
// Barrier cost is a fixed number of cycles per barrier per block, spread
// over the SMs; atomics are serialized per address group at the L2.
//===----------------------------------------------------------------------===//
#include "strata/costmodel/AnalyticModel.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace strata::costmodel {

namespace {

// Cycles for a __syncthreads() with a full block in flight (measured in the
// literature at 20-40 cycles on Volta/Ampere; we take the upper end).
constexpr double kBarrierCycles = 40;
// A global atomic on distinct addresses completes at about one per L2 slice
// per clock; conflicting atomics serialize. Without address information we
// take one atomic per clock per SM quarter.
constexpr double kAtomicsPerSmPerCycle = 0.25;
// Transcendental functions cost this many FP32 lane-cycles each on the SFUs
// relative to an FMA (SFU throughput is 1/4 of FMA throughput per SM on
// Ampere/Hopper, and several SFU ops make one libm-accurate function).
constexpr double kTranscendentalFmaEquivalents = 8;
// The L1 data path moves 128 bytes (four 32-byte sectors) per clock per SM.
constexpr double kSectorsPerWavefront = 4;
// Independent instructions per thread beyond which more do not hide more
// latency (Volkov: a few per thread match several warps).
constexpr double kMaxIlp = 4;
// Loaded bytes are counted, not load instructions: most elements are 4 bytes.
constexpr double kTypicalElementBytes = 4;

double f(const FeatureVector &v, Feature which) { return v[index(which)]; }

}  // namespace

double AnalyticModel::latency_hiding(double occupancy) {
    // Roughly linear up to ~50% occupancy, flat after (Volkov's "better
    // performance at lower occupancy": ILP hides the rest).
    occupancy = std::clamp(occupancy, 0.0, 1.0);
    return std::clamp(0.15 + 1.7 * occupancy, 0.15, 1.0);
}

TermVector AnalyticModel::terms(const FeatureVector &v) const { return terms(v, spec_); }

double AnalyticModel::launch_efficiency(double blocks, double resident_blocks_per_sm, double occupancy,
                                        const GpuSpec &spec) {
    // In block-work units: an SM with n resident blocks runs them at
    // latency_hiding(its occupancy) of its peak, so each takes n / h(n).
    // A full wave puts R blocks on every SM; the tail wave puts ceil(t / S)
    // on the busiest. Ideal time is B / S; efficiency is ideal / actual.
    const double sms = std::max(spec.sm_count, 1);
    const double resident = std::max(1.0, std::floor(resident_blocks_per_sm));
    const double b = std::max(1.0, blocks);
    const double full_waves = std::floor(b / (sms * resident));
    const double tail = b - full_waves * sms * resident;
    double actual = full_waves * resident / latency_hiding(occupancy);
    if (tail > 0) {
        const double per_sm = std::ceil(tail / sms);
        actual += per_sm / latency_hiding(occupancy * per_sm / resident);
    }
    return std::clamp((b / sms) / actual, 1e-6, 1.0);
}

TermVector AnalyticModel::terms(const FeatureVector &v, const GpuSpec &spec) {
    TermVector t{};
    // Latency is hidden by warps and by independent instructions within a
    // warp: an unrolled tile of k independent points counts as up to
    // kMaxIlp warps' worth of parallelism.
    const double ilp = std::clamp(f(v, Feature::UnrollFactor), 1.0, kMaxIlp);
    const double efficiency = launch_efficiency(f(v, Feature::Blocks), f(v, Feature::ResidentBlocksPerSm),
                                                std::min(1.0, f(v, Feature::Occupancy) * ilp), spec);
    const double clock = std::max(spec.boost_clock_hz, 1.0);

    const double fma_rate = std::max(spec.fp32_flops_per_second(), 1.0);
    // Memory instructions take issue slots too: one per element a thread
    // loads (after register reuse) or a lane moves through shared memory,
    // each the slot of an FMA (2 FLOP). Like the FLOPs, they count the
    // lanes with work: the slots idle lanes waste are the `lanes` divisor's.
    const double lanes = std::clamp(f(v, Feature::ActiveThreadFraction), 1e-3, 1.0);
    const double memory_instructions = f(v, Feature::GlobalLoadBytesUseful) / kTypicalElementBytes +
                                       (f(v, Feature::SharedLoadRequests) + f(v, Feature::SharedStoreRequests)) *
                                           spec.warp_size * lanes;
    const double flops = f(v, Feature::Flops) + kTranscendentalFmaEquivalents * 2 * f(v, Feature::TranscendentalOps) +
                         2 * memory_instructions;
    t[index(Term::Compute)] = flops / (fma_rate * lanes * efficiency);

    const double dram_bw = std::max(spec.dram_bandwidth_bytes_per_second, 1.0);
    t[index(Term::Dram)] = f(v, Feature::DramBytes) / (dram_bw * efficiency);

    const double l2_bw = std::max(spec.l2_bandwidth_bytes_per_second, dram_bw);
    t[index(Term::L2)] = f(v, Feature::L2Bytes) / (l2_bw * efficiency);

    const double shared_requests = (f(v, Feature::SharedLoadRequests) + f(v, Feature::SharedStoreRequests)) *
                                   std::max(1.0, f(v, Feature::SharedBankConflictWays));
    // Warp requests to global memory: the useful bytes of a warp instruction
    // are one element per lane.
    const double global_requests = (f(v, Feature::GlobalLoadBytesUseful) + f(v, Feature::GlobalStoreBytesUseful)) /
                                   (kTypicalElementBytes * std::max(spec.warp_size, 1));
    const double l1_wavefronts =
        std::max(global_requests,
                 (f(v, Feature::GlobalLoadSectors) + f(v, Feature::GlobalStoreSectors)) / kSectorsPerWavefront);
    t[index(Term::Shared)] = (shared_requests + l1_wavefronts) / (std::max(spec.sm_count, 1) * clock * efficiency);

    const double sms = std::max(spec.sm_count, 1);
    t[index(Term::Atomic)] = f(v, Feature::AtomicOps) / (sms * kAtomicsPerSmPerCycle * clock);

    const double resident = std::max(1.0, f(v, Feature::ResidentBlocksPerSm));
    const double block_rounds = std::ceil(f(v, Feature::Blocks) / (sms * resident));
    t[index(Term::Sync)] = f(v, Feature::BarriersPerBlock) * block_rounds * kBarrierCycles / clock;

    // The chains of a round of resident blocks run side by side; each of
    // their steps waits for the one before.
    const double step_seconds = f(v, Feature::DependentSteps) * spec.dependent_step_cycles / clock +
                                f(v, Feature::DependentStepMisses) * spec.l1_miss_latency_seconds;
    t[index(Term::Latency)] = block_rounds * step_seconds;

    t[index(Term::Launch)] = f(v, Feature::KernelLaunches) * spec.kernel_launch_seconds;
    return t;
}

std::vector<StageTerms> AnalyticModel::stage_terms(const ScheduleFeatures &schedule) const {
    std::vector<StageTerms> out;
    out.reserve(schedule.size());
    for (const StageFeatures &stage : schedule) out.push_back(StageTerms{stage.kernel, terms(stage.features)});
    return out;
}

std::vector<double> AnalyticModel::predict(const std::vector<const ScheduleFeatures *> &batch) const {
    std::vector<double> seconds;
    seconds.reserve(batch.size());
    for (const ScheduleFeatures *schedule : batch) {
        const std::vector<StageTerms> stages = stage_terms(*schedule);
        seconds.push_back(pipeline_seconds(stages, std::vector<TermVector>(stages.size(), unit_coefficients()),
                                           nullptr));
    }
    return seconds;
}

std::string AnalyticModel::describe() const {
    std::ostringstream s;
    s << "analytic model on " << spec_.name << " (" << spec_.sm_count << " SMs)";
    return s.str();
}

}  // namespace strata::costmodel
