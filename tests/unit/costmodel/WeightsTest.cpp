#include "strata/costmodel/Weights.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace strata::costmodel;
using Json = nlohmann::ordered_json;

namespace {

Weights trained_looking() {
    LearnedModel model = LearnedModel::identity({16, 12}, 9);  // hidden widths unlike the term count
    model.layers().back().weights.setRandom();
    model.layers().back().bias.setRandom();
    model.set_normalization(Eigen::VectorXd::LinSpaced(kNumFeatures, -1, 3),
                            Eigen::VectorXd::LinSpaced(kNumFeatures, 0.5, 2));
    return Weights{model, {{"tool", "test"}, {"epochs", 3}}};
}

std::string error_of(const Json &json) {
    try {
        Weights::from_json(json, "w.json");
    } catch (const WeightsError &e) {
        return e.what();
    }
    return "(no error)";
}

std::string error_of_text(const std::string &text) {
    try {
        Weights::from_text(text, "w.json");
    } catch (const WeightsError &e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("weights round-trip exactly through a file") {
    const Weights w = trained_looking();
    const std::string path = "weights_test.json";
    w.write_file(path);
    const Weights back = Weights::read_file(path);
    std::remove(path.c_str());
    CHECK(back.model.mean() == w.model.mean());
    CHECK(back.model.scale() == w.model.scale());
    REQUIRE(back.model.layers().size() == w.model.layers().size());
    for (size_t l = 0; l < w.model.layers().size(); ++l) {
        CHECK(back.model.layers()[l].weights == w.model.layers()[l].weights);
        CHECK(back.model.layers()[l].bias == w.model.layers()[l].bias);
    }
    CHECK(back.training["epochs"] == 3);
    CHECK(back.to_text() == w.to_text());
}

TEST_CASE("the file describes itself") {
    const Json json = trained_looking().to_json();
    CHECK(json["schema"] == kWeightsSchema);
    CHECK(json["feature_names"].get<std::vector<std::string>>() == feature_names());
    CHECK(json["term_names"].get<std::vector<std::string>>() == term_names());
    CHECK(json["layers"][0]["shape"] == Json::array({16, kNumFeatures}));
    CHECK(json["layers"][2]["activation"] == "linear");
}

TEST_CASE("mismatched weights are refused, naming the file and what differs") {
    Json json = trained_looking().to_json();
    json["schema"] = "strata.weights.v0";
    CHECK(error_of(json) == "weights w.json: schema is \"strata.weights.v0\", this build reads \"strata.weights.v1\"");

    json = trained_looking().to_json();
    json["feature_schema_version"] = kFeatureSchemaVersion + 1;
    CHECK(error_of(json).find("trained for feature schema version " + std::to_string(kFeatureSchemaVersion + 1)) !=
          std::string::npos);

    json = trained_looking().to_json();
    json["feature_names"][3] = "ops_fma";
    const std::string names = error_of(json);
    CHECK(names.find("weights w.json: feature names differ from this build's") == 0);
    CHECK(names.find("unknown 'ops_fma'") != std::string::npos);
    CHECK(names.find("missing '" + feature_names()[3] + "'") != std::string::npos);

    json = trained_looking().to_json();
    std::swap(json["feature_names"][0], json["feature_names"][1]);
    CHECK(error_of(json).find("same names in a different order") != std::string::npos);

    json = trained_looking().to_json();
    json["term_names"].erase(json["term_names"].size() - 1);
    CHECK(error_of(json).find("term names differ from this build's (" + std::to_string(kNumTerms - 1) +
                              " in the file") != std::string::npos);

    json = trained_looking().to_json();
    json["layers"][1]["shape"] = {12, 15};
    CHECK(error_of(json) == "weights w.json: 'layers[1].shape' is [12, 15] but its input has 16 values");

    json = trained_looking().to_json();
    json["layers"][0]["weights"][3].erase(0);
    CHECK(error_of(json) ==
          "weights w.json: 'layers[0].weights[3]' must be an array of " + std::to_string(kNumFeatures) + " numbers");

    json = trained_looking().to_json();
    json["layers"].erase(2);
    CHECK(error_of(json) ==
          "weights w.json: the last layer has 12 outputs; this build has " + std::to_string(kNumTerms) + " terms");

    json = trained_looking().to_json();
    json["normalization"]["scale"][2] = 0.0;
    CHECK(error_of(json) == "weights w.json: normalization.scale[2] must be positive");

    json = trained_looking().to_json();
    json["layers"][2]["bias"][0] = "x";
    CHECK(error_of(json) == "weights w.json: 'layers[2].bias[0]' must be a number, not \"x\"");

    json = trained_looking().to_json();
    json["layers"][0]["activation"] = "tanh";
    CHECK(error_of(json) == "weights w.json: 'layers[0].activation' is \"tanh\", expected \"relu\"");

    json = trained_looking().to_json();
    json["extra"] = 1;
    CHECK(error_of(json) == "weights w.json: unknown field 'extra'");

    json = trained_looking().to_json();
    json.erase("training");
    CHECK(error_of(json) == "weights w.json: missing field 'training'");
}

TEST_CASE("corrupted files are refused with a clear message") {
    const std::string text = trained_looking().to_text();
    const std::string half = text.substr(0, text.size() / 2);
    const int lines = 1 + int(std::count(half.begin(), half.end(), '\n'));
    CHECK(error_of_text(half).find("weights w.json:" + std::to_string(lines) + ":") == 0);
    CHECK(error_of_text(half).find("not valid JSON (truncated?)") != std::string::npos);
    CHECK(error_of_text("").find("not valid JSON") != std::string::npos);
    CHECK(error_of_text("[]") == "weights w.json: the file must be a JSON object");
    std::string flipped = text;
    flipped[flipped.find("\"layers\"") + 1] = 'L';
    CHECK(error_of_text(flipped) == "weights w.json: missing field 'layers'");
    CHECK_THROWS_WITH_AS(Weights::read_file("/nonexistent/w.json"), "weights /nonexistent/w.json: cannot open the file",
                         WeightsError);
}

TEST_CASE("corrupted numbers are refused with their line or key") {
    const std::string text = trained_looking().to_text();
    // A number no double holds: the line it is on.
    std::string overflow = text;
    const size_t at = overflow.find("\"bias\": [") + 9;
    overflow.insert(at, "1e999, ");
    const int line = 1 + int(std::count(overflow.begin(), overflow.begin() + long(at), '\n'));
    const std::string message = error_of_text(overflow);
    CHECK(message.find("weights w.json:" + std::to_string(line) + ":") == 0);
    CHECK(message.find("a number too large for a double: '1e999'") != std::string::npos);
    std::string nan = text;
    nan.insert(at, "NaN, ");
    CHECK(error_of_text(nan).find("weights w.json:" + std::to_string(line) + ":") == 0);

    Json json = trained_looking().to_json();
    json["layers"][1]["weights"][2][1] = 1e300;
    CHECK(error_of(json) == "weights w.json: 'layers[1].weights[2][1]' is 1e+300, beyond ±1e6: such weights come from "
                            "a diverged training");
    json = trained_looking().to_json();
    json["normalization"]["mean"][0] = -2e7;
    CHECK(error_of(json).find("'normalization.mean[0]' is -20000000.0, beyond ±1e6") != std::string::npos);
    json = trained_looking().to_json();
    json["layers"][0]["shape"][0] = 1e12;
    CHECK(error_of(json) == "weights w.json: 'layers[0].shape[0]' must be a positive integer, not 1000000000000.0");
    json = trained_looking().to_json();
    json["layers"] = Json::object();
    CHECK(error_of(json) == "weights w.json: 'layers' must be a non-empty array");
    json = trained_looking().to_json();
    json["schema"] = "strata.weights.v0";
    CHECK(error_of(json) == "weights w.json: schema is \"strata.weights.v0\", this build reads \"strata.weights.v1\"");
    json = trained_looking().to_json();
    json["training"]["gpus"] = "h200";
    CHECK(error_of(json) == "weights w.json: 'training.gpus' must be an array of strings");
}

TEST_CASE("weights say which GPUs they were fit on, and using them for another one is flagged") {
    Weights w = trained_looking();
    CHECK(w.gpus().empty());
    CHECK(!w.gpu_mismatch(GpuSpec::by_name("a100")));  // nothing recorded: nothing to flag
    w.training["gpus"] = {"h200"};
    const Weights back = Weights::from_text(w.to_text(), "w.json");
    CHECK(back.gpus() == std::vector<std::string>{"h200"});
    CHECK(!back.gpu_mismatch(GpuSpec::by_name("h200")));
    const std::optional<std::string> warning = back.gpu_mismatch(GpuSpec::by_name("a100"));
    REQUIRE(warning);
    CHECK(*warning == "fit on h200, used for a100: its coefficients correct another GPU's terms");
}
