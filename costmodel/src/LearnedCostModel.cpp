#include "strata/costmodel/LearnedCostModel.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

namespace strata::costmodel {

namespace {

// A search builds its cost model once per pipeline, and a generator may run
// several: say it once per process for each weights file and GPU.
void warn_once(const std::string &weights_source, const std::string &gpu, const std::string &message) {
    static std::mutex mutex;
    static std::set<std::pair<std::string, std::string>> warned;
    const std::lock_guard<std::mutex> lock(mutex);
    if (warned.emplace(weights_source, gpu).second) {
        std::fprintf(stderr, "strata: warning: weights %s were %s\n", weights_source.c_str(), message.c_str());
    }
}

}  // namespace

LearnedCostModel::LearnedCostModel(GpuSpec spec, Weights weights, std::string weights_source)
    : analytic_(std::move(spec)),
      weights_(std::move(weights)),
      inference_(weights_.model),
      weights_source_(std::move(weights_source)) {
    gpu_warning_ = weights_.gpu_mismatch(analytic_.spec());
    if (gpu_warning_) warn_once(weights_source_, analytic_.spec().name, *gpu_warning_);
}

std::vector<double> LearnedCostModel::predict(const std::vector<const ScheduleFeatures *> &batch) const {
    std::vector<const FeatureVector *> features;
    for (const ScheduleFeatures *schedule : batch) {
        for (const StageFeatures &stage : *schedule) features.push_back(&stage.features);
    }
    std::vector<TermVector> all_coefficients;
    inference_.coefficients(features, all_coefficients);

    std::vector<double> seconds;
    seconds.reserve(batch.size());
    size_t next = 0;
    std::vector<StageTerms> stages;
    std::vector<TermVector> coefficients;
    for (const ScheduleFeatures *schedule : batch) {
        stages.clear();
        coefficients.clear();
        for (const StageFeatures &stage : *schedule) {
            stages.push_back(StageTerms{stage.kernel, analytic_.terms(stage.features)});
            coefficients.push_back(all_coefficients[next++]);
        }
        seconds.push_back(pipeline_seconds(stages, coefficients, nullptr));
    }
    return seconds;
}

std::vector<TermVector> LearnedCostModel::coefficients(const ScheduleFeatures &schedule) const {
    std::vector<const FeatureVector *> features;
    for (const StageFeatures &stage : schedule) features.push_back(&stage.features);
    std::vector<TermVector> out;
    inference_.coefficients(features, out);
    return out;
}

std::string LearnedCostModel::describe() const {
    std::ostringstream s;
    s << "learned model on " << analytic_.spec().name << " (" << analytic_.spec().sm_count << " SMs), weights "
      << weights_source_ << " (" << weights_.model.parameter_count() << " parameters)";
    return s.str();
}

}  // namespace strata::costmodel
