#include "strata/costmodel/Featurization.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>

using namespace strata::costmodel;
using Json = nlohmann::ordered_json;

namespace {

Featurization sample() {
    Featurization f;
    f.identity = {"unsharp", ContentHash::of_text("pipeline text"), ContentHash::of_text("schedule text")};
    for (int s = 0; s < 3; ++s) {
        StageFeatures stage;
        stage.name = "stage" + std::to_string(s) + ".s0";
        stage.kernel = s / 2;
        for (int i = 0; i < kNumFeatures; ++i) stage.features[i] = (s + 1) * 1000.0 + i + 1.0 / (i + 3);
        f.stages.push_back(stage);
    }
    return f;
}

std::string error_of(const Json &json) {
    try {
        Featurization::from_json(json, "f.json");
    } catch (const std::exception &e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("a featurization round-trips exactly through text") {
    const Featurization f = sample();
    const Featurization back = Featurization::from_text(f.to_text(), "mem");
    CHECK(back.identity.pipeline_name == "unsharp");
    CHECK(back.identity.pipeline_hash == f.identity.pipeline_hash);
    CHECK(back.identity.schedule_hash == f.identity.schedule_hash);
    REQUIRE(back.stages.size() == f.stages.size());
    for (size_t s = 0; s < f.stages.size(); ++s) {
        CHECK(back.stages[s].name == f.stages[s].name);
        CHECK(back.stages[s].kernel == f.stages[s].kernel);
        CHECK(back.stages[s].features == f.stages[s].features);  // bit-exact doubles
    }
}

TEST_CASE("files are self-describing: features by name, in schema order") {
    const Json json = sample().to_json();
    CHECK(json["schema"] == kFeaturizationSchema);
    CHECK(json["feature_schema_version"] == kFeatureSchemaVersion);
    const Json &features = json["stages"][0]["features"];
    REQUIRE(features.size() == size_t(kNumFeatures));
    CHECK(features.begin().key() == feature_names()[0]);
    CHECK(features[feature_name(Feature::Blocks)] == sample().stages[0].features[index(Feature::Blocks)]);
}

TEST_CASE("feature order in the file does not matter") {
    Json json = sample().to_json();
    Json reversed = Json::object();
    const Json &features = json["stages"][1]["features"];
    for (auto it = features.rbegin(); it != features.rend(); ++it) reversed[it.key()] = it.value();
    json["stages"][1]["features"] = reversed;
    CHECK(Featurization::from_json(json, "f.json").stages[1].features == sample().stages[1].features);
}

TEST_CASE("files and stages are written to disk and read back") {
    const std::string path = "featurization_test.featurization";
    sample().write_file(path);
    CHECK(Featurization::read_file(path).stages.size() == 3);
    std::remove(path.c_str());
    CHECK_THROWS_WITH(Featurization::read_file("/nonexistent/x.featurization"),
                      "featurization /nonexistent/x.featurization: cannot open the file");
}

TEST_CASE("a different feature schema is refused with the differing names") {
    Json json = sample().to_json();
    Json &features = json["stages"][2]["features"];
    features.erase(feature_name(Feature::Waves));
    features["tensor_core_ops"] = 3;
    const std::string message = error_of(json);
    CHECK(message.find("f.json: stages[2] ('stage2.s0'): feature names differ") == 0);
    CHECK(message.find("unknown 'tensor_core_ops'") != std::string::npos);
    CHECK(message.find("missing 'waves'") != std::string::npos);
    CHECK_THROWS_AS(Featurization::from_json(json, "f.json"), FeatureSchemaMismatch);

    Json old = sample().to_json();
    old["feature_schema_version"] = kFeatureSchemaVersion + 1;
    CHECK(error_of(old) == "f.json: written with feature schema version " + std::to_string(kFeatureSchemaVersion + 1) +
                               ", this build uses version " + std::to_string(kFeatureSchemaVersion));
    CHECK_THROWS_AS(Featurization::from_json(old, "f.json"), FeatureSchemaMismatch);
}

TEST_CASE("malformed featurizations are refused with the place of the problem") {
    Json json = sample().to_json();
    json["schema"] = "strata.profile.v1";
    CHECK(error_of(json) == "f.json: schema is 'strata.profile.v1', expected 'strata.featurization.v1'");

    json = sample().to_json();
    json["pipeline"]["hash"] = "xyz";
    CHECK(error_of(json) == "f.json: pipeline.hash: hash must be 16 hex digits, not \"xyz\"");

    json = sample().to_json();
    json["stages"][0]["features"]["blocks"] = "many";
    CHECK(error_of(json) == "f.json: stages[0] ('stage0.s0'): feature 'blocks' must be a number, not \"many\"");

    json = sample().to_json();
    json["stages"][1]["kernel"] = -1;
    CHECK(error_of(json) == "f.json: stages[1] ('stage1.s0'): 'kernel' must be a non-negative integer, not -1");

    json = sample().to_json();
    json["stages"][1]["name"] = "stage0.s0";
    CHECK(error_of(json) == "f.json: stages[1] ('stage0.s0'): stage name appears twice");

    json = sample().to_json();
    json.erase("stages");
    CHECK(error_of(json) == "f.json: missing field 'stages'");

    CHECK_THROWS_AS(Featurization::from_text("{\"schema\": ", "f.json"), FeaturizationFormatError);
}

TEST_CASE("non-finite features cannot be written (JSON has no NaN)") {
    Featurization f = sample();
    f.stages[1].features[index(Feature::Occupancy)] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(f.to_json(), doctest::Contains("stage 'stage1.s0': feature 'occupancy' is not finite"),
                         std::invalid_argument);
}
