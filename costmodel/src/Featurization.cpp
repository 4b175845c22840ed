#include "strata/costmodel/Featurization.h"

#include "strata/costmodel/FeatureRanges.h"
#include "strata/costmodel/JsonText.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace strata::costmodel {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void format_error(const std::string &where, const std::string &problem) {
    throw FeaturizationFormatError(where + ": " + problem);
}

const Json &member(const Json &object, const char *key, const std::string &where) {
    if (!object.is_object()) format_error(where, "expected a JSON object, found " + std::string(object.type_name()));
    auto it = object.find(key);
    if (it == object.end()) format_error(where, std::string("missing field '") + key + "'");
    return *it;
}

std::string string_member(const Json &object, const char *key, const std::string &where) {
    const Json &value = member(object, key, where);
    if (!value.is_string()) format_error(where, std::string("field '") + key + "' must be a string");
    return value.get<std::string>();
}

std::string join(const std::vector<std::string> &names) {
    std::string out;
    for (const std::string &n : names) out += (out.empty() ? "'" : ", '") + n + "'";
    return out;
}

FeatureVector features_from_json(const Json &json, int version, const std::string &where) {
    if (!json.is_object()) format_error(where, "'features' must be an object of feature name to value");
    FeatureVector features{};
    std::vector<bool> seen(kNumFeatures, false);
    std::vector<std::string> unknown;
    const std::vector<std::string> &names = feature_names();
    for (const auto &[name, value] : json.items()) {
        auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) {
            unknown.push_back(name);
            continue;
        }
        if (!value.is_number()) format_error(where, "feature '" + name + "' must be a number, not " + value.dump());
        const int i = int(it - names.begin());
        features[i] = value.get<double>();
        seen[i] = true;
    }
    std::vector<std::string> missing;
    for (int i = 0; i < kNumFeatures; ++i) {
        // A feature newer than the record: the model assumed 0 then.
        if (!seen[i] && feature_added_in(Feature(i)) <= version) missing.push_back(names[i]);
    }
    if (!unknown.empty() || !missing.empty()) {
        std::string problem = "feature names differ from this build's feature schema (version " +
                              std::to_string(kFeatureSchemaVersion) + "):";
        if (!unknown.empty()) problem += " unknown " + join(unknown) + ";";
        if (!missing.empty()) problem += " missing " + join(missing) + ";";
        problem.pop_back();
        throw FeatureSchemaMismatch(where + ": " + problem);
    }
    return features;
}

}  // namespace

Json stages_to_json(const ScheduleFeatures &stages) {
    Json list = Json::array();
    const std::vector<std::string> &names = feature_names();
    for (const StageFeatures &stage : stages) {
        Json features = Json::object();
        for (int i = 0; i < kNumFeatures; ++i) {
            if (!std::isfinite(stage.features[i])) {
                throw std::invalid_argument("stage '" + stage.name + "': feature '" + names[i] + "' is not finite (" +
                                            std::to_string(stage.features[i]) + ")");
            }
            features[names[i]] = stage.features[i];
        }
        list.push_back(Json{{"name", stage.name}, {"kernel", stage.kernel}, {"features", std::move(features)}});
    }
    return list;
}

ScheduleFeatures stages_from_json(const Json &json, int version, const std::string &where) {
    if (!json.is_array()) format_error(where, "'stages' must be an array");
    ScheduleFeatures stages;
    std::set<std::string> names;
    for (size_t i = 0; i < json.size(); ++i) {
        const std::string at = where + ": stages[" + std::to_string(i) + "]";
        StageFeatures stage;
        stage.name = string_member(json[i], "name", at);
        const std::string named = at + " ('" + stage.name + "')";
        if (stage.name.empty()) format_error(at, "stage name is empty");
        if (!names.insert(stage.name).second) format_error(named, "stage name appears twice");
        const Json &kernel = member(json[i], "kernel", named);
        if (!kernel.is_number_integer() || kernel.get<int64_t>() < 0 || kernel.get<int64_t>() > 1000000) {
            format_error(named, "'kernel' must be a non-negative integer, not " + kernel.dump());
        }
        stage.kernel = kernel.get<int>();
        stage.features = features_from_json(member(json[i], "features", named), version, named);
        if (std::optional<std::string> problem = implausible_feature(stage.features)) format_error(named, *problem);
        stages.push_back(std::move(stage));
    }
    return stages;
}

int readable_feature_schema_version(const Json &json, const std::string &where) {
    const Json &version = member(json, "feature_schema_version", where);
    if (!version.is_number_integer()) format_error(where, "'feature_schema_version' must be an integer");
    const int64_t v = version.get<int64_t>();
    if (v < kOldestReadableFeatureSchemaVersion || v > kFeatureSchemaVersion) {
        throw FeatureSchemaMismatch(where + ": written with feature schema version " + version.dump() +
                                    ", this build reads versions " +
                                    std::to_string(kOldestReadableFeatureSchemaVersion) + " to " +
                                    std::to_string(kFeatureSchemaVersion));
    }
    return int(v);
}

ContentHash hash_from_json(const Json &json, const std::string &where) {
    if (!json.is_string()) format_error(where, "hash must be a string of 16 hex digits, not " + json.dump());
    std::optional<ContentHash> hash = ContentHash::from_hex(json.get<std::string>());
    if (!hash) format_error(where, "hash must be 16 hex digits, not " + json.dump());
    return *hash;
}

Json Featurization::to_json() const {
    Json pipeline{{"name", identity.pipeline_name}, {"hash", identity.pipeline_hash.hex()}};
    if (identity.algorithm_hash) pipeline["algorithm_hash"] = identity.algorithm_hash->hex();
    Json out{{"schema", kFeaturizationSchema},
             {"feature_schema_version", kFeatureSchemaVersion},
             {"pipeline", std::move(pipeline)},
             {"schedule", {{"hash", identity.schedule_hash.hex()}}}};
    if (gpu_spec) out["gpu_spec"] = gpu_spec->to_json();
    out["stages"] = stages_to_json(stages);
    return out;
}

std::string Featurization::to_text() const { return to_json().dump(2) + "\n"; }

void Featurization::write_file(const std::string &path) const {
    const std::string text = to_text();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("featurization " + path + ": cannot open the file for writing");
    out << text;
    if (!out.flush()) throw std::runtime_error("featurization " + path + ": write failed");
}

Featurization Featurization::from_json(const Json &json, const std::string &source) {
    const std::string schema = string_member(json, "schema", source);
    if (schema != kFeaturizationSchema) {
        format_error(source, "schema is '" + schema + "', expected '" + kFeaturizationSchema + "'");
    }
    const int version = readable_feature_schema_version(json, source);
    Featurization f;
    const Json &pipeline = member(json, "pipeline", source);
    f.identity.pipeline_name = string_member(pipeline, "name", source + ": pipeline");
    f.identity.pipeline_hash =
        hash_from_json(member(pipeline, "hash", source + ": pipeline"), source + ": pipeline.hash");
    if (pipeline.contains("algorithm_hash")) {
        f.identity.algorithm_hash = hash_from_json(pipeline["algorithm_hash"], source + ": pipeline.algorithm_hash");
    }
    if (json.contains("gpu_spec")) {
        try {
            f.gpu_spec = GpuSpec::from_json(json["gpu_spec"], source + ": gpu_spec");
        } catch (const std::runtime_error &e) {
            throw FeaturizationFormatError(e.what());
        }
    }
    const Json &schedule = member(json, "schedule", source);
    f.identity.schedule_hash =
        hash_from_json(member(schedule, "hash", source + ": schedule"), source + ": schedule.hash");
    f.stages = stages_from_json(member(json, "stages", source), version, source);
    return f;
}

Featurization Featurization::from_text(const std::string &text, const std::string &source) {
    Json json;
    try {
        json = parse_json_text(text, source);
    } catch (const JsonSyntaxError &e) {
        throw FeaturizationFormatError(e.what());
    }
    return from_json(json, source);
}

Featurization Featurization::read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("featurization " + path + ": cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_text(text.str(), path);
}

}  // namespace strata::costmodel
