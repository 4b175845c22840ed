// LogTrainingData: turns profiling-log records, one at a time as a log is
// streamed, into what the trainer learns from — one MeasuredPipeline per
// (pipeline hash, device) with the minimum time of each schedule — and says
// what it did with them. Memory grows with the distinct schedules measured,
// not with the length of the logs.
//
// A record's features are only meaningful for the GPU spec they were
// computed for, and training prices them with that spec, so it must be the
// spec of the device that was measured: the device's spec is derived as
// strata-bench derives it (runtime/Device.h: the table entry for its name,
// else its compute capability with its own SM count, clock and L2), or is the
// fallback for devices neither names (e.g. a PoCL run). A record whose
// featurizing spec differs from it is refused — an A100-featurized schedule
// timed on an H200 would teach the model A100 features with H200 times —
// with its file:line and the numbers that differ, unless the check is off.
// A schedule measured more than once on the same device keeps its fastest
// measurement (the least disturbed one).
//
// Example:
//   TrainingDataBuilder builder({std::nullopt, /*check_specs=*/true});
//   LogReadReport report;
//   read_profile_logs({"runs/"}, [&](ProfileRecord &&r, const std::string &where) { builder.add(r, where); },
//                     report);
//   LogTrainingData data = std::move(builder).finish();   // throws on spec mismatches
#pragma once

#include "strata/costmodel/TrainingData.h"
#include "strata/runtime/ProfileLog.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace strata::runtime {

struct LogTrainingOptions {
    // The spec of devices that are in the GPU table neither by name nor by compute capability.
    std::optional<costmodel::GpuSpec> fallback;
    // Refuse records whose featurizing spec is not their device's.
    bool check_specs = true;
};

struct LogTrainingData {
    std::vector<costmodel::MeasuredPipeline> pipelines;  // ordered by pipeline hash, then device name
    int schedules = 0;
    int duplicates_merged = 0;
    std::map<std::string, int> records_per_gpu;  // by device name
    std::set<std::string> gpu_specs;             // the names of the specs the features were computed for
    std::vector<std::string> gpus_on_fallback;   // device names not in the table
};

// The spec strata-bench would featurize for on this device: from the table
// (by name, else by compute capability, for CUDA devices), else `fallback`.
// Throws std::invalid_argument when neither applies.
costmodel::GpuSpec expected_device_spec(const MeasuredDevice &device,
                                        const std::optional<costmodel::GpuSpec> &fallback);

class TrainingDataBuilder {
public:
    explicit TrainingDataBuilder(LogTrainingOptions options);

    // `where` ("<file>:<line>") names the record in errors.
    void add(const ProfileRecord &record, const std::string &where);

    // Throws std::runtime_error if a device is unknown and there is no
    // fallback, or if records were featurized for another spec than their
    // device's (listing the first of them with what differs).
    LogTrainingData finish() &&;

private:
    // pipeline hash, device name (and the measuring condition: see ProfileTimes)
    using Key = std::pair<uint64_t, std::string>;
    LogTrainingOptions options_;
    LogTrainingData data_;
    std::map<std::string, std::optional<costmodel::GpuSpec>> device_specs_;  // by device name; empty: unknown
    std::map<Key, costmodel::MeasuredPipeline> groups_;
    std::map<Key, std::map<uint64_t, size_t>> seen_;  // schedule hash → index into the group's schedules
    std::set<std::string> unknown_devices_;
    std::vector<std::string> mismatches_;
    int mismatch_count_ = 0;
};

}  // namespace strata::runtime
