// Featurization: the per-stage features of one scheduled pipeline together
// with what identifies it (pipeline name and content hash, schedule hash,
// feature schema version), as self-describing JSON. The autoscheduler emits
// it as its `featurization` output (`-e featurization`); strata-bench reads
// it to write a profiling-log record for the build it measured.
//
// Features are stored by name ({"blocks": 1024, ...}), so a file says what
// it holds; parsing refuses a file whose feature names or schema version
// differ from this build's rather than misreading it, and features outside
// their plausible range (FeatureRanges.h). A file of an older version that
// this build still reads (kOldestReadableFeatureSchemaVersion) has the
// features added since read as 0, what the model assumed when it was written.
//
//   {"schema": "strata.featurization.v1", "feature_schema_version": 4,
//    "pipeline": {"name": "unsharp", "hash": "<16 hex digits>", "algorithm_hash": "<16 hex digits>"},
//    "schedule": {"hash": "<16 hex digits>"},
//    "gpu_spec": {"schema": "strata.gpu_spec.v1", "name": "h200", ...},
//    "stages": [{"name": "blurred.s0", "kernel": 0, "features": {"ops_add_sub": 4, ...}}, ...]}
//
// "algorithm_hash" (the pipeline's definition without its sizes) and
// "gpu_spec" (the GPU the features were computed for) are optional: a log
// record needs both, and strata-bench takes them from its command line when
// the featurization lacks them.
//
// Example:
//   Featurization f{{"unsharp", ContentHash::of_text(pipeline_text), ContentHash::of_text(schedule_text)},
//                   stages};
//   f.write_file("unsharp.featurization");
//   Featurization back = Featurization::read_file("unsharp.featurization");
#pragma once

#include "strata/costmodel/ContentHash.h"
#include "strata/costmodel/FeatureSchema.h"
#include "strata/costmodel/GpuSpec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>

namespace strata::costmodel {

inline constexpr const char *kFeaturizationSchema = "strata.featurization.v1";

// The text is not a well-formed featurization (or log record): bad JSON, a
// missing or mistyped field.
class FeaturizationFormatError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Well-formed, but written for another feature schema: its version or its
// feature names differ from this build's.
class FeatureSchemaMismatch : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ScheduleIdentity {
    std::string pipeline_name;
    ContentHash pipeline_hash;  // the definition with its sizes
    ContentHash schedule_hash;
    // The definition without its sizes: one app at two sizes is one algorithm.
    std::optional<ContentHash> algorithm_hash;
};

struct Featurization {
    ScheduleIdentity identity;
    ScheduleFeatures stages;
    std::optional<GpuSpec> gpu_spec;  // the GPU the features were computed for

    // Throws std::invalid_argument naming the stage and feature if a value is not finite.
    nlohmann::ordered_json to_json() const;
    std::string to_text() const;  // pretty-printed, ends with a newline
    void write_file(const std::string &path) const;

    // `source` names the file (or other origin) in error messages.
    static Featurization from_json(const nlohmann::ordered_json &json, const std::string &source);
    static Featurization from_text(const std::string &text, const std::string &source);
    static Featurization read_file(const std::string &path);
};

// The pieces shared with profiling-log records (see runtime/ProfileLog.h).
// `where` prefixes error messages, e.g. "log.jsonl:12".
nlohmann::ordered_json stages_to_json(const ScheduleFeatures &stages);
// `version`: the feature schema version the stages were written with
// (readable_feature_schema_version()). Also refuses implausible feature
// values (FeatureRanges.h) with FeaturizationFormatError.
ScheduleFeatures stages_from_json(const nlohmann::ordered_json &json, int version, const std::string &where);
// The feature schema version `json` was written with; throws
// FeatureSchemaMismatch unless this build reads it.
int readable_feature_schema_version(const nlohmann::ordered_json &json, const std::string &where);
ContentHash hash_from_json(const nlohmann::ordered_json &json, const std::string &where);

}  // namespace strata::costmodel
