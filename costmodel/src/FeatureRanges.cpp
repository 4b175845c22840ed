#include "strata/costmodel/FeatureRanges.h"

#include <array>
#include <cmath>
#include <sstream>

namespace strata::costmodel {

namespace {

// Per point of a stage.
constexpr FeatureRange kPerPoint{0, 1e7};
constexpr FeatureRange kFlag{0, 1};
// Computed fractions may round a hair above one.
constexpr FeatureRange kFraction{0, 1 + 1e-9};
// Counts of one launch shape or resource (threads, registers, waves, ...).
constexpr FeatureRange kCount{0, 1e12};
// Totals over a whole stage: operations, bytes, sectors, requests.
constexpr FeatureRange kTotal{0, 1e18};

std::array<FeatureRange, kNumFeatures> make_ranges() {
    std::array<FeatureRange, kNumFeatures> r{};
    auto set = [&r](Feature f, FeatureRange range) { r[index(f)] = range; };
    for (Feature f : {Feature::OpsAddSub, Feature::OpsMul, Feature::OpsDivMod, Feature::OpsMinMax,
                      Feature::OpsCompareSelect, Feature::OpsTranscendental, Feature::OpsCast, Feature::OpsBitwise,
                      Feature::LoadsPerPoint, Feature::BytesPerPoint, Feature::Producers, Feature::RecomputeRatio}) {
        set(f, kPerPoint);
    }
    set(Feature::IsUpdate, kFlag);
    set(Feature::IsKernelRoot, kFlag);
    set(Feature::ActiveThreadFraction, kFraction);
    set(Feature::Occupancy, kFraction);
    set(Feature::WaveEfficiency, kFraction);
    for (Feature f : {Feature::ReductionPointsPerPoint, Feature::KernelLaunches, Feature::Blocks,
                      Feature::ThreadsPerBlock, Feature::SerialIterationsPerThread, Feature::UnrollFactor,
                      Feature::RegistersPerThread, Feature::SharedBytesPerBlock, Feature::ResidentBlocksPerSm,
                      Feature::Waves, Feature::SharedBankConflictWays, Feature::BarriersPerBlock,
                      Feature::WorkingSetBytesPerBlock, Feature::DependentSteps, Feature::DependentStepMisses}) {
        set(f, kCount);
    }
    // InlinedCalls counts every inlined call of the stage's points together.
    for (Feature f : {Feature::PointsComputed, Feature::InlinedCalls, Feature::Flops, Feature::TranscendentalOps,
                      Feature::GlobalLoadSectors, Feature::GlobalStoreSectors, Feature::GlobalLoadBytesUseful,
                      Feature::GlobalStoreBytesUseful, Feature::DramBytes, Feature::L2Bytes,
                      Feature::SharedLoadRequests, Feature::SharedStoreRequests, Feature::AtomicOps}) {
        set(f, kTotal);
    }
    return r;
}

const std::array<FeatureRange, kNumFeatures> kRanges = make_ranges();

std::string number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

const FeatureRange &feature_range(Feature feature) { return kRanges[index(feature)]; }

std::optional<std::string> implausible_feature(const FeatureVector &features) {
    for (int i = 0; i < kNumFeatures; ++i) {
        const FeatureRange &range = kRanges[i];
        const double v = features[i];
        if (std::isfinite(v) && v >= range.lo && v <= range.hi) continue;
        return "feature '" + std::string(feature_name(Feature(i))) + "' is " + number(v) + " (expected " +
               number(range.lo) + " to " + number(range.hi) + ")";
    }
    return std::nullopt;
}

}  // namespace strata::costmodel
