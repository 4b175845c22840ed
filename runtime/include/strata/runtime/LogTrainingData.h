// LogTrainingData: turns profiling-log records into what the trainer
// learns from — one MeasuredPipeline per (pipeline hash, GPU) with the
// minimum time of each schedule — and says what it did with them.
//
// Each record's GPU spec is looked up by the device name it recorded
// (GpuSpec::by_name accepts the names CUDA drivers report); a device that
// is not in the table takes the fallback spec if one is given, else is an
// error listing the unknown names. A schedule measured more than once on
// the same GPU keeps its fastest measurement (the least disturbed one).
//
// Example:
//   ProfileLogContents logs = read_profile_logs({"runs/"});
//   LogTrainingData data = training_data_from_logs(logs.records, std::nullopt);
//   TrainingResult result = costmodel::train_cost_model(data.pipelines, options);
#pragma once

#include "strata/costmodel/TrainingData.h"
#include "strata/runtime/ProfileLog.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::runtime {

struct LogTrainingData {
    std::vector<costmodel::MeasuredPipeline> pipelines;  // ordered by pipeline hash, then device name
    int schedules = 0;
    int duplicates_merged = 0;
    std::map<std::string, int> records_per_gpu;  // by device name
    std::vector<std::string> gpus_on_fallback;   // device names not in the table
};

// Throws std::runtime_error if a device is unknown and there is no fallback.
LogTrainingData training_data_from_logs(const std::vector<ProfileRecord> &records,
                                        const std::optional<costmodel::GpuSpec> &fallback);

}  // namespace strata::runtime
