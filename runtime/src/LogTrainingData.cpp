#include "strata/runtime/LogTrainingData.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace strata::runtime {

namespace {

constexpr size_t kMismatchesShown = 5;
constexpr size_t kDifferencesShown = 4;

std::string join(const std::vector<std::string> &parts, const char *separator) {
    std::string out;
    for (const std::string &p : parts) out += (out.empty() ? "" : separator) + p;
    return out;
}

}  // namespace

costmodel::GpuSpec expected_device_spec(const MeasuredDevice &device,
                                        const std::optional<costmodel::GpuSpec> &fallback) {
    try {
        if (device.api == "cuda") return device_spec(device.info);
        return costmodel::GpuSpec::by_name(device.info.name);
    } catch (const std::invalid_argument &) {
        if (fallback) return *fallback;
        throw;
    }
}

TrainingDataBuilder::TrainingDataBuilder(LogTrainingOptions options) : options_(std::move(options)) {}

void TrainingDataBuilder::add(const ProfileRecord &record, const std::string &where) {
    const std::string &device = record.device.info.name;
    auto known = device_specs_.find(device);
    if (known == device_specs_.end()) {
        std::optional<costmodel::GpuSpec> spec;
        try {
            spec = expected_device_spec(record.device, std::nullopt);
        } catch (const std::invalid_argument &) {
            if (options_.fallback) {
                spec = options_.fallback;
                data_.gpus_on_fallback.push_back(device);
            } else {
                unknown_devices_.insert(device);
            }
        }
        known = device_specs_.emplace(device, std::move(spec)).first;
    }
    if (!known->second) return;  // reported by finish()

    if (options_.check_specs) {
        std::vector<std::string> differences = record.featurized_for.differences(*known->second);
        if (!differences.empty()) {
            if (++mismatch_count_ <= int(kMismatchesShown)) {
                if (differences.size() > kDifferencesShown) {
                    differences.resize(kDifferencesShown);
                    differences.push_back("...");
                }
                mismatches_.push_back(where + ": features computed for " + record.featurized_for.name +
                                      " but measured on " + device + " (spec " + known->second->name +
                                      "), features' vs device's: " + join(differences, ", "));
            }
            return;
        }
    }

    // Times with the allocation cache on and off measure different things: separate groups.
    const Key key{record.identity.pipeline_hash.value(),
                  record.times.reused_device_allocations ? device + " (device allocations reused)" : device};
    costmodel::MeasuredPipeline &group = groups_[key];
    if (group.schedules.empty()) {
        group.name = record.identity.pipeline_name;
        group.pipeline_hash = record.identity.pipeline_hash;
        group.spec = record.featurized_for;
        if (record.identity.algorithm_hash) group.algorithm = record.identity.algorithm_hash->hex();
    }
    ++data_.records_per_gpu[device];
    data_.gpu_specs.insert(record.featurized_for.name);
    const double seconds = record.times.min_ms * 1e-3;
    auto [it, inserted] = seen_[key].emplace(record.identity.schedule_hash.value(), group.schedules.size());
    if (inserted) {
        group.schedules.push_back({record.identity.schedule_hash.hex(), record.stages, seconds, record.variant});
    } else {
        ++data_.duplicates_merged;
        double &kept = group.schedules[it->second].seconds;
        kept = std::min(kept, seconds);
    }
}

LogTrainingData TrainingDataBuilder::finish() && {
    if (!unknown_devices_.empty()) {
        std::vector<std::string> names;
        for (const std::string &n : unknown_devices_) names.push_back("'" + n + "'");
        throw std::runtime_error("the logs measure GPUs that are not in the GPU table: " + join(names, ", ") +
                                 "; give a spec for them with --gpu <name or spec.json>");
    }
    if (mismatch_count_ > 0) {
        throw std::runtime_error(
            std::to_string(mismatch_count_) +
            " record(s) were featurized for another GPU spec than the device they were measured on; their "
            "features and times do not belong together (build with the measured device's spec, e.g. "
            "STRATA_GPU_SPEC from strata-bench --device-spec, or pass --no-spec-check to train anyway):\n  " +
            join(mismatches_, "\n  ") + (mismatch_count_ > int(kMismatchesShown) ? "\n  ..." : ""));
    }
    for (auto &[key, group] : groups_) {
        data_.schedules += int(group.schedules.size());
        data_.pipelines.push_back(std::move(group));
    }
    return std::move(data_);
}

}  // namespace strata::runtime
