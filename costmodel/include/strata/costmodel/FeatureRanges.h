// FeatureRanges: the values each per-stage feature can plausibly take. A
// feature outside its range (a negative count, an occupancy above one, 1e300
// bytes) means a broken featurizer or a corrupted file, never a real
// schedule; it is refused where features are read, so one bad record cannot
// steer training. The bounds are generous: a total above 1e18 would be hours
// of work for one stage on any GPU.
//
// Example:
//   if (std::optional<std::string> problem = implausible_feature(stage.features))
//       throw std::runtime_error("stage " + stage.name + ": " + *problem);
#pragma once

#include "strata/costmodel/FeatureSchema.h"

#include <optional>
#include <string>

namespace strata::costmodel {

struct FeatureRange {
    double lo = 0;
    double hi = 0;
};

const FeatureRange &feature_range(Feature feature);

// "feature 'occupancy' is 3 (expected 0 to 1)" for the first feature outside
// its range (or not finite), else nothing.
std::optional<std::string> implausible_feature(const FeatureVector &features);

}  // namespace strata::costmodel
