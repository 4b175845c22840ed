//===- SyntheticProfiles.cpp - pipelines and times from a known truth -----===//
//
// The schedule features follow the same definitions a featurizer uses
// (FeatureSchema.h), derived from a few random choices per stage, so that
// the analytic terms cover compute-, DRAM-, L2- and shared-bound kernels,
// launch-bound small pipelines, and kernels that fuse several stages.
//
// Random numbers come from splitmix64 through our own transforms (not the
// std distributions, whose output differs between standard libraries), so a
// seed gives the same data everywhere.
//===----------------------------------------------------------------------===//
#include "strata/costmodel/SyntheticProfiles.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/TermCombination.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace strata::costmodel {

namespace {

class Random {
public:
    explicit Random(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double unit() { return double(next() >> 11) * (1.0 / double(1ull << 53)); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
    int integer(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo + 1)); }  // inclusive
    bool chance(double p) { return unit() < p; }
    double normal() {  // Box-Muller
        const double u1 = std::max(unit(), 1e-300), u2 = unit();
        return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    template <typename T, size_t N>
    T pick(const T (&options)[N]) {
        return options[next() % N];
    }

private:
    uint64_t state_;
};

// The algorithm of one stage: what does not change between schedules.
struct StageAlgorithm {
    double ops[8];  // add_sub, mul, div_mod, min_max, compare_select, transcendental, cast, bitwise
    double loads;
    double bytes;
    bool update;
    double reduction;
    double producers;
    double points;
};

StageAlgorithm make_algorithm(Random &r) {
    StageAlgorithm a{};
    const int max_ops[8] = {12, 12, 2, 4, 3, 2, 3, 2};
    const bool heavy = r.chance(0.25);  // some stages are arithmetic-heavy (e.g. a convolution)
    for (int i = 0; i < 8; ++i) {
        a.ops[i] = (i == 5 && !r.chance(0.3)) ? 0 : r.integer(0, max_ops[i]) * (heavy && i < 2 ? 8 : 1);
    }
    a.loads = r.integer(1, 12);
    a.bytes = 4 * a.loads + 4;
    a.update = r.chance(0.15);
    a.reduction = a.update ? double(1 << r.integer(4, 8)) : 1;
    a.producers = r.integer(1, 3);
    a.points = std::exp2(r.uniform(14, 23));
    return a;
}

void schedule_stage(Random &r, const StageAlgorithm &a, const GpuSpec &spec, bool kernel_root, FeatureVector &f) {
    auto set = [&f](Feature which, double value) { f[index(which)] = value; };
    const Feature ops[8] = {Feature::OpsAddSub, Feature::OpsMul,           Feature::OpsDivMod,
                            Feature::OpsMinMax, Feature::OpsCompareSelect, Feature::OpsTranscendental,
                            Feature::OpsCast,   Feature::OpsBitwise};
    for (int i = 0; i < 8; ++i) set(ops[i], a.ops[i]);
    set(Feature::LoadsPerPoint, a.loads);
    set(Feature::BytesPerPoint, a.bytes);
    set(Feature::IsUpdate, a.update ? 1 : 0);
    set(Feature::ReductionPointsPerPoint, a.reduction);
    set(Feature::Producers, a.producers);

    const bool staged = r.chance(0.35);  // inputs staged in shared memory
    const double recompute = staged ? r.uniform(1.0, 1.5) : (r.chance(0.3) ? r.uniform(1.0, 2.0) : 1.0);
    const double points = a.points * recompute;
    const int threads = 1 << r.integer(5, 10);
    const int serial = 1 << r.integer(0, 3);
    const int unroll = r.pick((const int[]){1, 1, 2, 4});
    const int registers = 16 + 8 * r.integer(0, 14);
    const double shared_bytes = staged ? std::round(r.uniform(1024, 48 * 1024)) : 0;
    const double blocks = std::max(1.0, std::ceil(points / (threads * serial)));

    const int register_units = spec.register_allocation_unit;
    const int warps = (threads + spec.warp_size - 1) / spec.warp_size;
    const double registers_per_warp = std::ceil(registers * spec.warp_size / double(register_units)) * register_units;
    double resident = std::min<double>(spec.max_blocks_per_sm, spec.max_threads_per_sm / threads);
    resident = std::min(resident, std::floor(spec.registers_per_sm / (registers_per_warp * warps)));
    if (shared_bytes > 0) resident = std::min(resident, std::floor(spec.shared_memory_per_sm / shared_bytes));
    resident = std::max(resident, 1.0);
    const double occupancy = std::min(1.0, resident * warps / spec.max_warps_per_sm);
    const double waves = blocks / (spec.sm_count * resident);

    set(Feature::PointsComputed, points);
    set(Feature::RecomputeRatio, recompute);
    set(Feature::InlinedCalls, r.integer(0, 3));
    set(Feature::IsKernelRoot, kernel_root ? 1 : 0);
    set(Feature::KernelLaunches, kernel_root ? 1 : 0);
    set(Feature::Blocks, blocks);
    set(Feature::ThreadsPerBlock, threads);
    set(Feature::ActiveThreadFraction, r.chance(0.6) ? 1.0 : r.uniform(0.5, 1.0));
    set(Feature::SerialIterationsPerThread, serial);
    set(Feature::UnrollFactor, unroll);
    set(Feature::RegistersPerThread, registers);
    set(Feature::SharedBytesPerBlock, shared_bytes);
    set(Feature::ResidentBlocksPerSm, resident);
    set(Feature::Occupancy, occupancy);
    set(Feature::Waves, waves);
    set(Feature::WaveEfficiency, waves / std::ceil(waves));
    // No synthetic stage is a scan: its chain's latency term stays 0.
    set(Feature::DependentSteps, 0);
    set(Feature::DependentStepMisses, 0);

    const double op_count = a.ops[0] + a.ops[1] + 2 * a.ops[2] + a.ops[3] + a.ops[4] + a.ops[6] + a.ops[7];
    set(Feature::Flops, points * a.reduction * op_count);
    set(Feature::TranscendentalOps, points * a.reduction * a.ops[5]);

    const double sector = spec.global_memory_sector_bytes;
    const double coalescing = r.pick((const double[]){1, 1, 1, 2, 4, 8, 32});
    const double load_bytes = points * a.reduction * a.loads * 4 / (staged ? 8.0 : 1.0);
    set(Feature::GlobalLoadBytesUseful, load_bytes);
    set(Feature::GlobalStoreBytesUseful, a.points * 4);
    set(Feature::GlobalLoadSectors, std::ceil(load_bytes / sector) * coalescing);
    set(Feature::GlobalStoreSectors, std::ceil(a.points * 4 / sector) * r.pick((const double[]){1, 1, 2}));
    const double dram = a.points * a.bytes * r.uniform(0.3, 1.0);
    set(Feature::DramBytes, dram);
    set(Feature::L2Bytes, (f[index(Feature::GlobalLoadSectors)] + f[index(Feature::GlobalStoreSectors)]) * sector);

    const double shared_loads = staged ? points * a.reduction * a.loads / spec.warp_size * r.uniform(0.5, 2.0) : 0;
    set(Feature::SharedLoadRequests, shared_loads);
    set(Feature::SharedStoreRequests, staged ? points / spec.warp_size : 0);
    set(Feature::SharedBankConflictWays, staged ? r.pick((const double[]){1, 1, 2, 4, 8, 32}) : 1);
    set(Feature::AtomicOps, a.update && r.chance(0.2) ? a.points * r.uniform(1, 8) : 0);
    set(Feature::BarriersPerBlock, staged ? 2.0 * serial : 0);
    set(Feature::WorkingSetBytesPerBlock, shared_bytes + double(threads) * registers * 4);
}

double feature(const FeatureVector &f, Feature which) { return f[index(which)]; }

}  // namespace

TermVector synthetic_true_coefficients(const FeatureVector &f) {
    TermVector log_c{};
    // Compute slows with register pressure and gains from unrolling.
    log_c[index(Term::Compute)] =
        0.8 * std::tanh(std::log(std::max(1.0, feature(f, Feature::RegistersPerThread)) / 48)) -
        0.3 * std::log2(std::max(1.0, feature(f, Feature::UnrollFactor)));
    // DRAM latency is hidden worse at low occupancy than the analytic curve says.
    log_c[index(Term::Dram)] = 1.2 * (1 - std::clamp(feature(f, Feature::Occupancy), 0.0, 1.0)) - 0.2;
    // Scattered sectors cost more than their bytes at the L2.
    const double useful =
        std::max(1.0, feature(f, Feature::GlobalLoadBytesUseful) + feature(f, Feature::GlobalStoreBytesUseful));
    log_c[index(Term::L2)] = 0.8 * std::tanh(std::log(std::max(1.0, feature(f, Feature::L2Bytes)) / useful)) - 0.2;
    log_c[index(Term::Shared)] = 0.6 * std::log2(std::max(1.0, feature(f, Feature::SharedBankConflictWays))) / 5 - 0.2;
    log_c[index(Term::Atomic)] = -0.3;
    log_c[index(Term::Sync)] = 0.5;
    log_c[index(Term::Launch)] = 0.7;
    TermVector c;
    for (int t = 0; t < kNumTerms; ++t) c[t] = std::exp(log_c[t]);
    return c;
}

SyntheticTruth parse_synthetic_truth(const std::string &name) {
    if (name == "model-form") return SyntheticTruth::ModelForm;
    if (name == "additive") return SyntheticTruth::Additive;
    throw std::invalid_argument("unknown synthetic truth '" + name + "' (model-form or additive)");
}

const char *synthetic_truth_name(SyntheticTruth truth) {
    return truth == SyntheticTruth::ModelForm ? "model-form" : "additive";
}

namespace {

// Cycles the block scheduler spends launching one block on an SM.
constexpr double kBlockLaunchCycles = 600;
// DRAM traffic of a kernel whose bytes exceed the L2 this many times over is re-fetched this much more.
constexpr double kThrashFactor = 1.4;
constexpr double kSpillRegisters = 128;

// The additive truth of one schedule: see the header.
double additive_seconds(const ScheduleFeatures &stages, const std::vector<StageTerms> &terms,
                        const std::vector<TermVector> &truth, const GpuSpec &spec) {
    std::map<int, double> kernel_dram_bytes;
    for (const StageFeatures &stage : stages) kernel_dram_bytes[stage.kernel] += feature(stage.features, Feature::DramBytes);
    double seconds = 0;
    for (size_t s = 0; s < stages.size(); ++s) {
        const FeatureVector &f = stages[s].features;
        const bool thrashes = kernel_dram_bytes[stages[s].kernel] > double(spec.l2_cache_bytes);
        const double spill = 1 + std::max(0.0, feature(f, Feature::RegistersPerThread) - kSpillRegisters) / 64;
        for (int t = 0; t < kNumTerms; ++t) {
            double term = truth[s][t] * terms[s].terms[t];
            if (Term(t) == Term::Dram && thrashes) term *= kThrashFactor;
            if (Term(t) == Term::Compute) term *= spill;
            seconds += term;
        }
        if (feature(f, Feature::IsKernelRoot) > 0) {
            seconds += feature(f, Feature::Blocks) * kBlockLaunchCycles / (spec.sm_count * spec.boost_clock_hz);
        }
    }
    return seconds;
}

}  // namespace

std::vector<MeasuredPipeline> make_synthetic_pipelines(const SyntheticOptions &options, const GpuSpec &spec) {
    Random r(options.seed);
    std::vector<MeasuredPipeline> pipelines;
    for (int p = 0; p < options.pipelines; ++p) {
        const std::string algorithm = "synthetic_" + std::to_string(options.seed) + "_" + std::to_string(p);
        const int stage_count = r.integer(1, std::max(1, options.max_stages));
        std::vector<StageAlgorithm> algorithms;
        for (int s = 0; s < stage_count; ++s) algorithms.push_back(make_algorithm(r));

        for (int size = 0; size < std::max(1, options.sizes_per_algorithm); ++size) {
            MeasuredPipeline pipeline;
            pipeline.name = size == 0 ? algorithm : algorithm + "@" + std::to_string(size);
            pipeline.algorithm = algorithm;
            pipeline.pipeline_hash = ContentHash::of_text(pipeline.name);
            pipeline.spec = spec;
            std::vector<StageAlgorithm> sized = algorithms;
            for (StageAlgorithm &a : sized) a.points *= std::exp2(2.0 * size);  // 2x per dimension of an image

            for (int k = 0; k < options.schedules_per_pipeline; ++k) {
                MeasuredSchedule schedule;
                std::vector<StageTerms> terms;
                std::vector<TermVector> truth;
                int kernel = 0;
                for (int s = 0; s < stage_count; ++s) {
                    const bool root = s == 0 || r.chance(0.6);  // otherwise fused into the previous kernel
                    if (s > 0 && root) ++kernel;
                    StageFeatures stage;
                    stage.name = "f" + std::to_string(s) + ".s0";
                    stage.kernel = kernel;
                    schedule_stage(r, sized[s], spec, root, stage.features);
                    terms.push_back(StageTerms{kernel, AnalyticModel::terms(stage.features, spec)});
                    truth.push_back(synthetic_true_coefficients(stage.features));
                    schedule.stages.push_back(std::move(stage));
                }
                schedule.seconds = options.truth == SyntheticTruth::ModelForm
                                       ? pipeline_seconds(terms, truth, nullptr)
                                       : additive_seconds(schedule.stages, terms, truth, spec);
                if (options.noise > 0) schedule.seconds *= std::exp(options.noise * r.normal());
                schedule.label = ContentHash::of_text(pipeline.name + "/" + std::to_string(k)).hex();
                pipeline.schedules.push_back(std::move(schedule));
            }
            pipelines.push_back(std::move(pipeline));
        }
    }
    return pipelines;
}

}  // namespace strata::costmodel
