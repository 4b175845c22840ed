// SyntheticProfiles: made-up pipelines, schedules and "measured" times from
// a known ground truth, for testing the trainer and measuring the model
// without a GPU. Each pipeline has a fixed algorithm (op mix, loads, sizes
// per stage); its schedules vary kernel fusion, block and thread tiling,
// registers, shared-memory staging, coalescing and bank conflicts, with the
// occupancy and wave features derived from a GpuSpec as a real featurizer
// would. Two ground truths:
//
//   ModelForm  pipeline_seconds() of the analytic terms scaled by
//              synthetic_true_coefficients(): exactly the learned model's
//              functional form, so it checks that the optimiser can recover
//              known coefficients — a circular check of learning itself.
//   Additive   the same scaled terms summed within a kernel instead of
//              overlapped, plus effects the analytic model does not have:
//              block-scheduling overhead per block, DRAM traffic that
//              thrashes the L2 once a kernel's bytes exceed it, and register
//              spills above 128 registers. The model cannot represent it;
//              the question is whether learning still beats pure analytic.
//
// Example:
//   SyntheticOptions options;
//   options.pipelines = 100;
//   std::vector<MeasuredPipeline> data = make_synthetic_pipelines(options, GpuSpec::default_spec());
#pragma once

#include "strata/costmodel/GpuSpec.h"
#include "strata/costmodel/TrainingData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::costmodel {

enum class SyntheticTruth { ModelForm, Additive };

struct SyntheticOptions {
    int pipelines = 200;  // algorithms, each measured at `sizes_per_algorithm` sizes
    int sizes_per_algorithm = 1;
    SyntheticTruth truth = SyntheticTruth::ModelForm;
    int schedules_per_pipeline = 24;
    int max_stages = 6;
    uint64_t seed = 1;
    // Multiplicative measurement noise: time *= exp(noise * N(0, 1)).
    double noise = 0.0;
};

// "model-form" or "additive"; throws std::invalid_argument listing both.
SyntheticTruth parse_synthetic_truth(const std::string &name);
const char *synthetic_truth_name(SyntheticTruth truth);

// The coefficients the synthetic GPU follows for a stage with these features.
TermVector synthetic_true_coefficients(const FeatureVector &features);

std::vector<MeasuredPipeline> make_synthetic_pipelines(const SyntheticOptions &options, const GpuSpec &spec);

}  // namespace strata::costmodel
