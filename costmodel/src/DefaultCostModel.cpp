#include "strata/costmodel/DefaultCostModel.h"

#include "strata/costmodel/LearnedCostModel.h"

#include <cstdlib>

namespace strata::costmodel {

// Defined in the file CMake generates from costmodel/weights/default.json.
extern const char *const kShippedDefaultWeights;

const std::string &shipped_default_weights_text() {
    static const std::string text(kShippedDefaultWeights);
    return text;
}

NamedWeights load_default_weights() {
    const char *path = std::getenv(kWeightsEnvironmentVariable);
    if (path && *path) {
        try {
            return {Weights::read_file(path), path};
        } catch (const WeightsError &e) {
            throw WeightsError(std::string(e.what()) + " (named by " + kWeightsEnvironmentVariable + ")");
        }
    }
    try {
        return {Weights::from_text(shipped_default_weights_text(), "built-in default.json"), "built-in default.json"};
    } catch (const WeightsError &e) {
        // The feature schema changed without regenerating the shipped file.
        throw WeightsError(std::string(e.what()) +
                           "; regenerate it with: strata-retrain --identity -o costmodel/weights/default.json");
    }
}

std::unique_ptr<CostModel> make_default_cost_model(const GpuSpec &spec) {
    NamedWeights named = load_default_weights();
    return std::make_unique<LearnedCostModel>(spec, std::move(named.weights), std::move(named.source));
}

}  // namespace strata::costmodel
