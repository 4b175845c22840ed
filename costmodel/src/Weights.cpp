#include "strata/costmodel/Weights.h"

#include "strata/costmodel/JsonText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace strata::costmodel {

namespace {

using Json = nlohmann::ordered_json;

// Trained weights, biases and normalizations stay within a few hundred;
// anything this large would only saturate the clamped output.
constexpr double kMaxMagnitude = 1e6;

class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string &problem) const {
        throw WeightsError("weights " + source_ + ": " + problem);
    }

    const Json &field(const Json &object, const std::string &key, const std::string &where = "") const {
        if (!object.is_object()) fail((where.empty() ? "the file" : where) + " must be a JSON object");
        auto it = object.find(key);
        if (it == object.end()) fail("missing field '" + (where.empty() ? "" : where + ".") + key + "'");
        return *it;
    }

    std::vector<std::string> names(const Json &json, const std::string &what) const {
        if (!json.is_array()) fail("'" + what + "' must be an array of strings");
        std::vector<std::string> out;
        for (const Json &n : json) {
            if (!n.is_string()) fail("'" + what + "' must be an array of strings");
            out.push_back(n.get<std::string>());
        }
        return out;
    }

    void expect_names(const std::vector<std::string> &found, const std::vector<std::string> &expected,
                      const std::string &what) const {
        if (found == expected) return;
        std::string diff;
        for (const std::string &n : found) {
            if (std::find(expected.begin(), expected.end(), n) == expected.end()) diff += " unknown '" + n + "';";
        }
        for (const std::string &n : expected) {
            if (std::find(found.begin(), found.end(), n) == found.end()) diff += " missing '" + n + "';";
        }
        if (diff.empty()) diff = " same names in a different order;";
        diff.pop_back();
        fail(what + " differ from this build's (" + std::to_string(found.size()) + " in the file, " +
             std::to_string(expected.size()) + " here):" + diff);
    }

    Eigen::VectorXd vector(const Json &json, Eigen::Index size, const std::string &what) const {
        if (!json.is_array() || Eigen::Index(json.size()) != size) {
            fail("'" + what + "' must be an array of " + std::to_string(size) + " numbers");
        }
        Eigen::VectorXd v(size);
        for (Eigen::Index i = 0; i < size; ++i) v[i] = number(json[size_t(i)], what + "[" + std::to_string(i) + "]");
        return v;
    }

    double number(const Json &json, const std::string &what) const {
        if (!json.is_number()) fail("'" + what + "' must be a number, not " + json.dump());
        const double v = json.get<double>();
        if (!std::isfinite(v)) fail("'" + what + "' is not finite");
        if (std::abs(v) > kMaxMagnitude) {
            fail("'" + what + "' is " + json.dump() + ", beyond ±1e6: such weights come from a diverged training");
        }
        return v;
    }

    int dimension(const Json &json, const std::string &what) const {
        if (!json.is_number_integer() || json.get<int64_t>() <= 0 || json.get<int64_t>() > 65536) {
            fail("'" + what + "' must be a positive integer, not " + json.dump());
        }
        return json.get<int>();
    }

private:
    std::string source_;
};

// Pretty-printed, but an array of scalars (a row of weights, the feature
// names) stays on one line: diffs and eyes then find rows, not numbers.
void write_readable(const Json &json, int depth, std::string &out) {
    const std::string pad(2 * size_t(depth + 1), ' ');
    const std::string close_pad(2 * size_t(depth), ' ');
    if (json.is_object() && !json.empty()) {
        out += "{\n";
        size_t i = 0;
        for (const auto &[key, value] : json.items()) {
            out += pad + Json(key).dump() + ": ";
            write_readable(value, depth + 1, out);
            out += ++i < json.size() ? ",\n" : "\n";
        }
        out += close_pad + "}";
    } else if (json.is_array() && !json.empty() &&
               !std::all_of(json.begin(), json.end(), [](const Json &e) { return e.is_primitive(); })) {
        out += "[\n";
        for (size_t i = 0; i < json.size(); ++i) {
            out += pad;
            write_readable(json[i], depth + 1, out);
            out += i + 1 < json.size() ? ",\n" : "\n";
        }
        out += close_pad + "]";
    } else {
        out += json.dump();
    }
}

Json vector_json(const Eigen::VectorXd &v) {
    Json a = Json::array();
    for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v[i]);
    return a;
}

}  // namespace

Json Weights::to_json() const {
    Json layers = Json::array();
    for (size_t l = 0; l < model.layers().size(); ++l) {
        const LearnedModel::Layer &layer = model.layers()[l];
        Json rows = Json::array();
        for (Eigen::Index r = 0; r < layer.weights.rows(); ++r)
            rows.push_back(vector_json(layer.weights.row(r).transpose()));
        const bool last = l + 1 == model.layers().size();
        layers.push_back(Json{{"shape", {layer.weights.rows(), layer.weights.cols()}},
                              {"activation", last ? "linear" : "relu"},
                              {"weights", std::move(rows)},
                              {"bias", vector_json(layer.bias)}});
    }
    return Json{{"schema", kWeightsSchema},
                {"feature_schema_version", kFeatureSchemaVersion},
                {"feature_names", feature_names()},
                {"term_names", term_names()},
                {"input_transform", "signed_log1p"},
                {"output", "log_coefficients"},
                {"normalization", {{"mean", vector_json(model.mean())}, {"scale", vector_json(model.scale())}}},
                {"layers", std::move(layers)},
                {"training", training}};
}

std::string Weights::to_text() const {
    std::string text;
    write_readable(to_json(), 0, text);
    return text + "\n";
}

void Weights::write_file(const std::string &path) const {
    const std::string text = to_text();
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw WeightsError("weights " + path + ": cannot open " + temporary + " for writing");
        out << text;
        if (!out.flush()) throw WeightsError("weights " + path + ": write failed");
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw WeightsError("weights " + path + ": cannot rename " + temporary + " into place");
    }
}

Weights Weights::from_json(const Json &json, const std::string &source) {
    const Reader r(source);
    const Json &schema = r.field(json, "schema");
    if (schema != kWeightsSchema) {
        r.fail("schema is " + schema.dump() + ", this build reads \"" + kWeightsSchema + "\"");
    }
    const Json &version = r.field(json, "feature_schema_version");
    if (!version.is_number_integer() || version.get<int64_t>() != kFeatureSchemaVersion) {
        r.fail("trained for feature schema version " + version.dump() + ", this build uses version " +
               std::to_string(kFeatureSchemaVersion) + "; retrain with strata-retrain");
    }
    r.expect_names(r.names(r.field(json, "feature_names"), "feature_names"), feature_names(), "feature names");
    r.expect_names(r.names(r.field(json, "term_names"), "term_names"), term_names(), "term names");
    if (r.field(json, "input_transform") != "signed_log1p") {
        r.fail("input_transform is " + json["input_transform"].dump() + ", this build implements \"signed_log1p\"");
    }
    if (r.field(json, "output") != "log_coefficients") {
        r.fail("output is " + json["output"].dump() + ", this build implements \"log_coefficients\"");
    }
    const Json &normalization = r.field(json, "normalization");
    Eigen::VectorXd mean =
        r.vector(r.field(normalization, "mean", "normalization"), kNumFeatures, "normalization.mean");
    Eigen::VectorXd scale =
        r.vector(r.field(normalization, "scale", "normalization"), kNumFeatures, "normalization.scale");
    for (int i = 0; i < kNumFeatures; ++i) {
        if (!(scale[i] > 0)) r.fail("normalization.scale[" + std::to_string(i) + "] must be positive");
    }

    const Json &layers_json = r.field(json, "layers");
    if (!layers_json.is_array() || layers_json.empty()) r.fail("'layers' must be a non-empty array");
    std::vector<LearnedModel::Layer> layers;
    int inputs = kNumFeatures;
    for (size_t l = 0; l < layers_json.size(); ++l) {
        const std::string at = "layers[" + std::to_string(l) + "]";
        const Json &layer = layers_json[l];
        const Json &shape = r.field(layer, "shape", at);
        if (!shape.is_array() || shape.size() != 2) r.fail("'" + at + ".shape' must be [outputs, inputs]");
        const int rows = r.dimension(shape[0], at + ".shape[0]");
        const int cols = r.dimension(shape[1], at + ".shape[1]");
        const bool last = l + 1 == layers_json.size();
        if (cols != inputs) {
            r.fail("'" + at + ".shape' is [" + std::to_string(rows) + ", " + std::to_string(cols) +
                   "] but its input has " + std::to_string(inputs) + " values" + (l == 0 ? " (one per feature)" : ""));
        }
        if (last && rows != kNumTerms) {
            r.fail("the last layer has " + std::to_string(rows) + " outputs; this build has " +
                   std::to_string(kNumTerms) + " terms");
        }
        const std::string activation = last ? "linear" : "relu";
        if (r.field(layer, "activation", at) != activation) {
            r.fail("'" + at + ".activation' is " + layer["activation"].dump() + ", expected \"" + activation + "\"");
        }
        const Json &weights = r.field(layer, "weights", at);
        if (!weights.is_array() || int(weights.size()) != rows) {
            r.fail("'" + at + ".weights' must have " + std::to_string(rows) + " rows (shape[0])");
        }
        LearnedModel::Layer out{Eigen::MatrixXd(rows, cols), Eigen::VectorXd()};
        for (int row = 0; row < rows; ++row) {
            out.weights.row(row) =
                r.vector(weights[size_t(row)], cols, at + ".weights[" + std::to_string(row) + "]").transpose();
        }
        out.bias = r.vector(r.field(layer, "bias", at), rows, at + ".bias");
        layers.push_back(std::move(out));
        inputs = rows;
    }
    const Json &training = r.field(json, "training");
    if (!training.is_object()) r.fail("'training' must be an object");
    if (training.contains("gpus")) r.names(training["gpus"], "training.gpus");
    for (const auto &[key, value] : json.items()) {
        static const char *known[] = {
            "schema", "feature_schema_version", "feature_names", "term_names", "input_transform",
            "output", "normalization",          "layers",        "training"};
        if (std::find(std::begin(known), std::end(known), key) == std::end(known))
            r.fail("unknown field '" + key + "'");
    }
    return Weights{LearnedModel(std::move(mean), std::move(scale), std::move(layers)), training};
}

Weights Weights::from_text(const std::string &text, const std::string &source) {
    Json json;
    try {
        json = parse_json_text(text, source);
    } catch (const JsonSyntaxError &e) {
        throw WeightsError(std::string("weights ") + e.what());
    }
    return from_json(json, source);
}

std::vector<std::string> Weights::gpus() const {
    std::vector<std::string> out;
    if (const auto it = training.find("gpus"); it != training.end() && it->is_array()) {
        for (const Json &name : *it) {
            if (name.is_string()) out.push_back(name.get<std::string>());
        }
    }
    return out;
}

std::optional<std::string> Weights::gpu_mismatch(const GpuSpec &spec) const {
    const std::vector<std::string> fitted = gpus();
    if (fitted.empty() || std::find(fitted.begin(), fitted.end(), spec.name) != fitted.end()) return std::nullopt;
    std::string names;
    for (const std::string &n : fitted) names += (names.empty() ? "" : ", ") + n;
    return "fit on " + names + ", used for " + spec.name + ": its coefficients correct another GPU's terms";
}

Weights Weights::read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw WeightsError("weights " + path + ": cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str(), path);
}

}  // namespace strata::costmodel
