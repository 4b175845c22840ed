// ProfileLog: profiling logs as JSON Lines — one self-describing record per
// measured (pipeline, schedule) on one device, holding everything needed to
// reuse it years later: what was run (pipeline name, its hash with and
// without sizes, the sizes run, the schedule's hash, variant and sample
// index), the GPU spec its features were computed for (in full, not by
// name: the table may change), the device measured (name, SMs, compute
// capability, clocks, memory, driver), Halide and Strata versions, feature
// schema version, per-stage features (by name) and the times, every sample.
//
//   {"schema": "strata.profile.v2", "feature_schema_version": 4,
//    "pipeline": {"name": "unsharp", "hash": "<16 hex>", "algorithm_hash": "<16 hex>",
//                 "sizes": {"input": [1536, 2560, 3], "output": [1536, 2560, 3]}},
//    "schedule": {"hash": "<16 hex>", "variant": "strata", "sample_index": 3},
//    "target": "x86-64-linux-cuda-cuda_capability_86",
//    "featurized_for": {"schema": "strata.gpu_spec.v1", "name": "h200", "sm_count": 132, ...},
//    "device": {"api": "cuda", "name": "NVIDIA H200", "sm_count": 132, "compute_capability": 90,
//               "clock_khz": 1980000, "memory_clock_khz": 2619000, "memory_bus_width_bits": 6144,
//               "l2_cache_bytes": 62914560, "total_memory_bytes": 150754820096, "driver_version": 13000},
//    "halide_version": "21.0.0", "strata_version": "0.1.0",
//    "stages": [{"name": "blurred.s0", "kernel": 0, "features": {...}}, ...],
//    "times": {"min_ms": 0.41, "median_ms": 0.43, "samples": 3, "samples_ms": [0.43, 0.41, 0.44]}}
//
// "algorithm_hash", "variant" and "sample_index" are optional (not every
// build knows them). Logs are only ever appended to: one line per record,
// written with a single write() under an exclusive lock and fsync'd, so a
// crash can at worst leave a torn last line.
//
// Reading streams a file line by line — memory does not grow with the log —
// and never fails on a bad line: it is skipped, counted by reason, and
// reported as "<file>:<line>: <reason>: <detail>" (bad JSON, a number that
// overflows a double, an implausible feature, a record of a feature schema
// this build no longer reads).
// Fields a record does not need are ignored, so tools can annotate records.
//
// Example:
//   ProfileLogWriter log("runs/h200.jsonl");
//   log.append(record);
//   LogReadReport report;
//   read_profile_logs({"runs/"}, [&](ProfileRecord &&r, const std::string &where) { ... }, report);
//   std::printf("%s\n", report.skipped.summary().c_str());
#pragma once

#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/GpuSpec.h"
#include "strata/runtime/Device.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::runtime {

inline constexpr const char *kProfileSchema = "strata.profile.v2";

struct ProfileTimes {
    double min_ms = 0;
    double median_ms = 0;
    int samples = 0;
    std::vector<double> samples_ms;  // in the order measured (may be empty where not kept)
    // Measured with Halide's device-allocation cache on (BenchmarkOptions):
    // another condition, so another ranking group in training.
    bool reused_device_allocations = false;
};

// The device a record was measured on.
struct MeasuredDevice {
    std::string api;      // "cuda", or "opencl" where there is no CUDA device (PoCL)
    CudaDeviceInfo info;  // as the CUDA driver describes it; other APIs set the name alone (the ordinal is not kept)
    int driver_version = 0;
};

struct ProfileRecord {
    costmodel::ScheduleIdentity identity;
    // The extents of every buffer argument as run, by argument name.
    std::map<std::string, std::vector<int>> sizes;
    std::string variant;                 // "strata", "manual", "li2018", ...; "" if unknown
    std::optional<int> sample_index;     // which of a search's sampled schedules
    std::string target;                  // the Halide target string of the build
    costmodel::GpuSpec featurized_for;   // the spec the features were computed for
    MeasuredDevice device;
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
    int bad_json = 0;          // not a JSON value, or a number no double holds
    int wrong_schema = 0;      // JSON, but not a profiling record
    int outdated_schema = 0;   // a strata.profile.v1 record: lacks the featurizing spec and the sizes run
    int feature_mismatch = 0;  // another feature schema (names or version)
    int bad_record = 0;        // a missing, mistyped or implausible field

    int total() const {
        return torn_last_line + bad_json + wrong_schema + outdated_schema + feature_mismatch + bad_record;
    }
    // e.g. "2 skipped: 1 torn last line, 1 bad JSON"
    std::string summary() const;
};

// What one log file held.
struct LogFileSummary {
    std::string path;
    int lines = 0;
    int records = 0;
    costmodel::ContentHash content;  // of its bytes, so weights can name the exact log set they came from
};

struct LogReadReport {
    SkippedLines skipped;
    // One per skipped line, "<file>:<line>: <reason>: <detail>", the first kMaxMessages of them.
    static constexpr size_t kMaxMessages = 1000;
    std::vector<std::string> messages;
    std::vector<LogFileSummary> files;  // in the order read
    int records = 0;
};

// Called with each usable record and where it was ("<file>:<line>").
using RecordConsumer = std::function<void(ProfileRecord &&record, const std::string &where)>;

// Streams one log file. Throws std::runtime_error only if it cannot be read.
void read_profile_log(const std::string &path, const RecordConsumer &consume, LogReadReport &report);

// Streams files, and every *.jsonl file under directories (sorted, so the
// order is the same everywhere). Throws std::runtime_error naming a path
// that does not exist or a directory without logs.
void read_profile_logs(const std::vector<std::string> &paths, const RecordConsumer &consume, LogReadReport &report);

// Every usable record of small logs, in memory (tests, tools that need them all).
struct ProfileLogContents {
    std::vector<ProfileRecord> records;
    LogReadReport report;
};
ProfileLogContents read_profile_logs(const std::vector<std::string> &paths);

}  // namespace strata::runtime
