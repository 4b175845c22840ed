// Weights: a LearnedModel as a versioned, self-describing JSON file —
// schema version, feature schema version, feature and term names, input
// transform, normalization, layer shapes and values, and how it was
// trained. Loading checks every one of these against this build and refuses
// the file with a message naming it and what differs, so a model is never
// applied to features or terms it was not trained on.
//
//   {"schema": "strata.weights.v1", "feature_schema_version": 4,
//    "feature_names": [...], "term_names": [...],
//    "input_transform": "signed_log1p", "output": "log_coefficients",
//    "normalization": {"mean": [...], "scale": [...]},
//    "layers": [{"shape": [32, 44], "activation": "relu", "weights": [[...], ...], "bias": [...]}, ...,
//               {"shape": [7, 32], "activation": "linear", ...}],
//    "training": {"tool": "strata-retrain", "gpus": ["h200"], "logs": [...], ...}}
//
// "training.gpus" names the GPU specs the weights were fit on (strata-retrain
// writes it); using them for another GPU works but earns a warning.
//
// Example:
//   Weights w{LearnedModel::identity({32, 32}, 1), {{"tool", "example"}}};
//   w.write_file("weights.json");
//   Weights back = Weights::read_file("weights.json");   // throws WeightsError on any mismatch
#pragma once

#include "strata/costmodel/GpuSpec.h"
#include "strata/costmodel/LearnedModel.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::costmodel {

inline constexpr const char *kWeightsSchema = "strata.weights.v1";

class WeightsError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Weights {
    LearnedModel model;
    // Free-form description of the training run (tool, data, GPUs, metrics); must be an object.
    nlohmann::ordered_json training = nlohmann::ordered_json::object();

    nlohmann::ordered_json to_json() const;
    std::string to_text() const;  // ends with a newline
    // Writes to a temporary file and renames it over `path`, so readers never see half a file.
    void write_file(const std::string &path) const;

    // `source` names the file in error messages.
    static Weights from_json(const nlohmann::ordered_json &json, const std::string &source);
    static Weights from_text(const std::string &text, const std::string &source);
    static Weights read_file(const std::string &path);

    // training.gpus: the GPU specs these weights were fit on (empty: not recorded).
    std::vector<std::string> gpus() const;
    // Why using these weights for `spec` is suspect, if it is.
    std::optional<std::string> gpu_mismatch(const GpuSpec &spec) const;
};

}  // namespace strata::costmodel
