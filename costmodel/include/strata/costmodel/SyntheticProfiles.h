// SyntheticProfiles: made-up pipelines, schedules and "measured" times from
// a known ground truth, for testing the trainer and measuring the model
// without a GPU. Each pipeline has a fixed algorithm (op mix, loads, sizes
// per stage); its schedules vary kernel fusion, block and thread tiling,
// registers, shared-memory staging, coalescing and bank conflicts, with the
// occupancy and wave features derived from a GpuSpec as a real featurizer
// would. The time of a schedule is pipeline_seconds() of its analytic terms
// scaled by synthetic_true_coefficients(): a smooth, bounded function of
// the features that the analytic model alone does not know.
//
// Example:
//   SyntheticOptions options;
//   options.pipelines = 100;
//   std::vector<MeasuredPipeline> data = make_synthetic_pipelines(options, GpuSpec::default_spec());
#pragma once

#include "strata/costmodel/GpuSpec.h"
#include "strata/costmodel/TrainingData.h"

#include <cstdint>
#include <vector>

namespace strata::costmodel {

struct SyntheticOptions {
    int pipelines = 200;
    int schedules_per_pipeline = 24;
    int max_stages = 6;
    uint64_t seed = 1;
    // Multiplicative measurement noise: time *= exp(noise * N(0, 1)).
    double noise = 0.0;
};

// The coefficients the synthetic GPU follows for a stage with these features.
TermVector synthetic_true_coefficients(const FeatureVector &features);

std::vector<MeasuredPipeline> make_synthetic_pipelines(const SyntheticOptions &options, const GpuSpec &spec);

}  // namespace strata::costmodel
