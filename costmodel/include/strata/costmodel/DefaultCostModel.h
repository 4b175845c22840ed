// DefaultCostModel: the cost model the autoscheduler uses unless told
// otherwise — the learned model with the weights named by the environment
// variable STRATA_WEIGHTS (a path to a weights JSON file written by
// strata-retrain), or else the weights shipped in costmodel/weights/default.json
// (compiled into the library), which are the pure analytic model.
//
// Example:
//   std::unique_ptr<CostModel> model = make_default_cost_model(GpuSpec::default_spec());
//   std::fprintf(stderr, "%s\n", model->describe().c_str());
//
//   $ STRATA_WEIGHTS=$HOME/strata/h200.json ./my_generator ...
#pragma once

#include "strata/costmodel/CostModel.h"
#include "strata/costmodel/GpuSpec.h"
#include "strata/costmodel/Weights.h"

#include <memory>
#include <string>

namespace strata::costmodel {

inline constexpr const char *kWeightsEnvironmentVariable = "STRATA_WEIGHTS";

// The text of costmodel/weights/default.json as built into the library.
const std::string &shipped_default_weights_text();

struct NamedWeights {
    Weights weights;
    std::string source;  // the file path, or "built-in default.json"
};

// STRATA_WEIGHTS if set and non-empty, else the shipped default. Throws
// WeightsError naming the file (and the variable) if it cannot be used.
NamedWeights load_default_weights();

std::unique_ptr<CostModel> make_default_cost_model(const GpuSpec &spec);

}  // namespace strata::costmodel
