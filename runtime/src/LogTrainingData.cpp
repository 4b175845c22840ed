#include "strata/runtime/LogTrainingData.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace strata::runtime {

LogTrainingData training_data_from_logs(const std::vector<ProfileRecord> &records,
                                        const std::optional<costmodel::GpuSpec> &fallback) {
    using costmodel::GpuSpec;
    LogTrainingData data;

    // Resolve every device name first, so that all unknown names are reported at once.
    std::map<std::string, GpuSpec> specs;
    std::set<std::string> unknown;
    for (const ProfileRecord &r : records) {
        if (specs.count(r.gpu) || unknown.count(r.gpu)) continue;
        try {
            specs.emplace(r.gpu, GpuSpec::by_name(r.gpu));
        } catch (const std::invalid_argument &) {
            if (fallback) {
                specs.emplace(r.gpu, *fallback);
                data.gpus_on_fallback.push_back(r.gpu);
            } else {
                unknown.insert(r.gpu);
            }
        }
    }
    if (!unknown.empty()) {
        std::string names;
        for (const std::string &n : unknown) names += (names.empty() ? "'" : ", '") + n + "'";
        throw std::runtime_error("the logs measure GPUs that are not in the GPU table: " + names +
                                 "; give a spec for them with --gpu <name or spec.json>");
    }

    // (pipeline hash, device) → schedule hash → index into the pipeline's schedules.
    using Key = std::pair<uint64_t, std::string>;
    std::map<Key, costmodel::MeasuredPipeline> groups;
    std::map<Key, std::map<uint64_t, size_t>> seen;
    for (const ProfileRecord &r : records) {
        const Key key{r.identity.pipeline_hash.value(), r.gpu};
        costmodel::MeasuredPipeline &group = groups[key];
        if (group.schedules.empty()) {
            group.name = r.identity.pipeline_name;
            group.pipeline_hash = r.identity.pipeline_hash;
            group.spec = specs.at(r.gpu);
        }
        ++data.records_per_gpu[r.gpu];
        const double seconds = r.times.min_ms * 1e-3;
        auto [it, inserted] = seen[key].emplace(r.identity.schedule_hash.value(), group.schedules.size());
        if (inserted) {
            group.schedules.push_back({r.identity.schedule_hash.hex(), r.stages, seconds});
        } else {
            ++data.duplicates_merged;
            double &kept = group.schedules[it->second].seconds;
            kept = std::min(kept, seconds);
        }
    }
    for (auto &[key, group] : groups) {
        data.schedules += int(group.schedules.size());
        data.pipelines.push_back(std::move(group));
    }
    return data;
}

}  // namespace strata::runtime
