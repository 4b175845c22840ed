#include "strata/costmodel/FeatureRanges.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace strata::costmodel;

TEST_CASE("every feature has a range, and fractions and flags are bounded by one") {
    for (int i = 0; i < kNumFeatures; ++i) {
        const FeatureRange &r = feature_range(Feature(i));
        CAPTURE(feature_name(Feature(i)));
        CHECK(r.lo == 0);
        CHECK(r.hi > r.lo);
    }
    CHECK(feature_range(Feature::Occupancy).hi < 1.001);
    CHECK(feature_range(Feature::IsKernelRoot).hi == 1);
    CHECK(feature_range(Feature::DramBytes).hi == 1e18);
}

TEST_CASE("plausible features pass; the first implausible one is named with its value and range") {
    FeatureVector f{};
    f[index(Feature::Occupancy)] = 1.0;
    f[index(Feature::DramBytes)] = 4e9;
    CHECK(!implausible_feature(f));

    f[index(Feature::Blocks)] = -1;
    CHECK(*implausible_feature(f) == "feature 'blocks' is -1 (expected 0 to 1e+12)");
    f[index(Feature::Blocks)] = 1;
    f[index(Feature::DramBytes)] = 1e300;
    CHECK(*implausible_feature(f) == "feature 'dram_bytes' is 1e+300 (expected 0 to 1e+18)");
    f[index(Feature::DramBytes)] = std::numeric_limits<double>::quiet_NaN();
    CHECK(implausible_feature(f)->find("feature 'dram_bytes' is nan") == 0);
    f[index(Feature::DramBytes)] = 0;
    f[index(Feature::WaveEfficiency)] = 1.5;
    CHECK(*implausible_feature(f) == "feature 'wave_efficiency' is 1.5 (expected 0 to 1)");
}
