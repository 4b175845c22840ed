// ProfileLog: profiling logs as JSON Lines — one record per measured
// (pipeline, schedule) on one GPU, holding everything strata-retrain needs:
// the identity of the pipeline and schedule (platform-independent content
// hashes), target, GPU, Halide and Strata versions, per-stage features (by
// name) and the measured times.
//
//   {"schema": "strata.profile.v1", "feature_schema_version": 3,
//    "pipeline": {"name": "unsharp", "hash": "<16 hex>"}, "schedule": {"hash": "<16 hex>"},
//    "target": "x86-64-linux-cuda-cuda_capability_80", "gpu": "NVIDIA H200",
//    "halide_version": "14.0.0", "strata_version": "0.1.0",
//    "stages": [{"name": "blurred.s0", "kernel": 0, "features": {...}}, ...],
//    "times": {"min_ms": 0.41, "median_ms": 0.43, "samples": 20}}
//
// Logs are only ever appended to: one line per record, written with a
// single write() under an exclusive lock and fsync'd, so a crash can at
// worst leave a torn last line. Reading never fails on a bad line: it is
// skipped, counted by reason, and reported with its line number. Fields a
// record does not need are ignored, so annotations can be added by tools.
//
// Example:
//   ProfileLogWriter log("runs/h200.jsonl");
//   log.append(record);
//   ProfileLogContents contents = read_profile_logs({"runs/"});
//   std::printf("%zu records, %d skipped\n", contents.records.size(), contents.skipped.total());
#pragma once

#include "strata/costmodel/Featurization.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace strata::runtime {

inline constexpr const char *kProfileSchema = "strata.profile.v1";

struct ProfileTimes {
    double min_ms = 0;
    double median_ms = 0;
    int samples = 0;
};

struct ProfileRecord {
    costmodel::ScheduleIdentity identity;
    std::string target;  // the Halide target string of the build
    std::string gpu;     // the device name as the CUDA driver reports it
    std::string halide_version;
    std::string strata_version;
    costmodel::ScheduleFeatures stages;
    ProfileTimes times;

    nlohmann::ordered_json to_json() const;
    // One line, no newline.
    std::string to_line() const;
    // Throws costmodel::FeaturizationFormatError or costmodel::FeatureSchemaMismatch.
    static ProfileRecord from_json(const nlohmann::ordered_json &json, const std::string &where);
};

// The Halide and Strata versions this build was made with.
const char *halide_version();
const char *strata_version();

class ProfileLogWriter {
public:
    // Creates the file if needed; never truncates it. Throws std::runtime_error naming the path.
    explicit ProfileLogWriter(std::string path);
    ~ProfileLogWriter();
    ProfileLogWriter(const ProfileLogWriter &) = delete;
    ProfileLogWriter &operator=(const ProfileLogWriter &) = delete;

    // Appends one record as one line and fsyncs it. If the file ends in a
    // torn line (a crash mid-write), the record starts on a new line.
    void append(const ProfileRecord &record);

    const std::string &path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
};

struct SkippedLines {
    int torn_last_line = 0;    // the last line has no newline and is incomplete
    int bad_json = 0;          // not a JSON value
    int wrong_schema = 0;      // JSON, but not a strata.profile.v1 record
    int feature_mismatch = 0;  // another feature schema (names or version)
    int bad_record = 0;        // a v1 record with a missing or mistyped field

    int total() const { return torn_last_line + bad_json + wrong_schema + feature_mismatch + bad_record; }
    // e.g. "2 skipped: 1 torn last line, 1 bad JSON"
    std::string summary() const;
};

struct ProfileLogContents {
    std::vector<ProfileRecord> records;
    SkippedLines skipped;
    // One per skipped line: "<file>:<line>: <reason>: <detail>".
    std::vector<std::string> messages;
    std::vector<std::string> files;  // the files read, in order
};

// Reads one log file into `contents`. Throws std::runtime_error only if the
// file cannot be opened.
void read_profile_log(const std::string &path, ProfileLogContents &contents);

// Reads files, and every *.jsonl file under directories (sorted, so the
// order is the same everywhere). Throws std::runtime_error naming a path
// that does not exist or a directory without logs.
ProfileLogContents read_profile_logs(const std::vector<std::string> &paths);

}  // namespace strata::runtime
