#include "strata/costmodel/Featurization.h"

#include "strata/costmodel/FeatureRanges.h"

#include <doctest/doctest.h>

#include <algorithm>
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
        for (int i = 0; i < kNumFeatures; ++i) {
            // Fractions and flags stay within [0, 1]: anything else is refused as implausible.
            const bool fraction = feature_range(Feature(i)).hi < 2;
            stage.features[i] = fraction ? 1.0 / (i + 3 + s) : (s + 1) * 1000.0 + i + 1.0 / (i + 3);
        }
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

    const std::string readable = "this build reads versions " + std::to_string(kOldestReadableFeatureSchemaVersion) +
                                 " to " + std::to_string(kFeatureSchemaVersion);
    Json newer = sample().to_json();
    newer["feature_schema_version"] = kFeatureSchemaVersion + 1;
    CHECK(error_of(newer) == "f.json: written with feature schema version " +
                                 std::to_string(kFeatureSchemaVersion + 1) + ", " + readable);
    CHECK_THROWS_AS(Featurization::from_json(newer, "f.json"), FeatureSchemaMismatch);
    Json older = sample().to_json();
    older["feature_schema_version"] = kOldestReadableFeatureSchemaVersion - 1;
    CHECK(error_of(older) == "f.json: written with feature schema version " +
                                 std::to_string(kOldestReadableFeatureSchemaVersion - 1) + ", " + readable);
}

TEST_CASE("an older featurization reads the features added since as 0, and must have every other one") {
    // Version 3 had no scan chains: its stages price as they did then.
    Json v3 = sample().to_json();
    v3["feature_schema_version"] = 3;
    for (Json &stage : v3["stages"]) {
        stage["features"].erase(feature_name(Feature::DependentSteps));
        stage["features"].erase(feature_name(Feature::DependentStepMisses));
    }
    const Featurization read = Featurization::from_json(v3, "f.json");
    REQUIRE(read.stages.size() == sample().stages.size());
    for (const StageFeatures &stage : read.stages) {
        CHECK(stage.features[index(Feature::DependentSteps)] == 0);
        CHECK(stage.features[index(Feature::DependentStepMisses)] == 0);
    }
    CHECK(read.stages[1].features[index(Feature::Blocks)] == sample().stages[1].features[index(Feature::Blocks)]);

    v3["stages"][0]["features"].erase(feature_name(Feature::Blocks));
    CHECK(error_of(v3).find("missing 'blocks'") != std::string::npos);
    // In this version's files the new features are required like any other.
    Json v4 = sample().to_json();
    v4["stages"][0]["features"].erase(feature_name(Feature::DependentSteps));
    CHECK(error_of(v4).find("missing 'dependent_steps'") != std::string::npos);
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

TEST_CASE("implausible features and unreadable numbers are refused with their place") {
    Json json = sample().to_json();
    json["stages"][2]["features"]["dram_bytes"] = -1e12;
    CHECK(error_of(json) == "f.json: stages[2] ('stage2.s0'): feature 'dram_bytes' is -1e+12 (expected 0 to 1e+18)");
    json = sample().to_json();
    json["stages"][0]["features"]["l2_bytes"] = 1e300;
    CHECK(error_of(json) == "f.json: stages[0] ('stage0.s0'): feature 'l2_bytes' is 1e+300 (expected 0 to 1e+18)");
    json = sample().to_json();
    json["stages"][1]["features"]["occupancy"] = 3;
    CHECK(error_of(json) == "f.json: stages[1] ('stage1.s0'): feature 'occupancy' is 3 (expected 0 to 1)");

    std::string text = sample().to_text();
    const size_t at = text.find("\"blocks\": ");
    text.replace(at, text.find(',', at) - at, "\"blocks\": 1e999");
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    try {
        Featurization::from_text(text, "f.json");
        FAIL("an overflowing number was accepted");
    } catch (const FeaturizationFormatError &e) {
        CHECK(std::string(e.what()).find("f.json:" + std::to_string(line) + ":") == 0);
        CHECK(std::string(e.what()).find("a number too large for a double: '1e999'") != std::string::npos);
    }
}

TEST_CASE("the algorithm hash and the featurizing GPU spec are optional and round-trip") {
    Featurization f = sample();
    f.identity.algorithm_hash = ContentHash::of_text("definition without sizes");
    f.gpu_spec = GpuSpec::by_name("h200");
    const Featurization back = Featurization::from_text(f.to_text(), "mem");
    REQUIRE(back.identity.algorithm_hash);
    CHECK(*back.identity.algorithm_hash == *f.identity.algorithm_hash);
    REQUIRE(back.gpu_spec);
    CHECK(back.gpu_spec->name == "h200");
    CHECK(back.gpu_spec->differences(*f.gpu_spec).empty());

    const Featurization plain = Featurization::from_text(sample().to_text(), "mem");
    CHECK(!plain.identity.algorithm_hash);
    CHECK(!plain.gpu_spec);

    Json json = f.to_json();
    json["gpu_spec"]["sm_count"] = -4;
    CHECK(error_of(json) == "GPU spec f.json: gpu_spec: field 'sm_count' must be positive");
}

TEST_CASE("non-finite features cannot be written (JSON has no NaN)") {
    Featurization f = sample();
    f.stages[1].features[index(Feature::Occupancy)] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(f.to_json(), doctest::Contains("stage 'stage1.s0': feature 'occupancy' is not finite"),
                         std::invalid_argument);
}
