// TrainingData: what the trainer learns from — schedules of a pipeline,
// each with its per-stage features and measured time on one GPU — grouped
// so that times are only ever compared within one pipeline on one GPU.
// strata-retrain builds these from profiling logs; tests build them from
// SyntheticProfiles.
//
// Example:
//   MeasuredPipeline p{"unsharp", ContentHash::of_text(text), GpuSpec::by_name("h200"), {}};
//   p.schedules.push_back({"3f2c9a0b11d4e5f6", stages, /*seconds=*/1.2e-3});
#pragma once

#include "strata/costmodel/ContentHash.h"
#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/GpuSpec.h"

#include <string>
#include <vector>

namespace strata::costmodel {

struct MeasuredSchedule {
    std::string label;  // e.g. the schedule hash, for messages
    ScheduleFeatures stages;
    double seconds = 0;  // the measured time (strata-retrain uses the minimum)
    std::string variant;  // which scheduler made it ("strata", "manual", ...), if known
};

// All measured schedules of one pipeline (one algorithm at one size) on one GPU.
struct MeasuredPipeline {
    std::string name;
    ContentHash pipeline_hash;
    GpuSpec spec;  // the GPU the features were computed for, and measured on
    std::vector<MeasuredSchedule> schedules;
    // What validation holds out together: the same algorithm at every size
    // and on every GPU. Empty means `name`.
    std::string algorithm;

    const std::string &algorithm_key() const { return algorithm.empty() ? name : algorithm; }
};

}  // namespace strata::costmodel
