// LearnedCostModel: the analytic terms of every stage (AnalyticModel), each
// scaled by a coefficient the learned model predicts from the stage's
// features, combined per kernel by pipeline_seconds(). With identity weights
// it predicts exactly what AnalyticModel does.
//
// A batch is evaluated with one forward pass over the stages of all its
// schedules, which is what keeps it cheap inside the search. Weights fit on
// another GPU than `spec` are used, with a warning on stderr (once per
// process for each weights file and GPU) and in gpu_warning().
//
// Example:
//   LearnedCostModel model(GpuSpec::by_name("h200"), Weights::read_file("h200.json"), "h200.json");
//   std::vector<double> seconds = model.predict({&schedule_a, &schedule_b});
#pragma once

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/CostModel.h"
#include "strata/costmodel/LearnedInference.h"
#include "strata/costmodel/Weights.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::costmodel {

class LearnedCostModel : public CostModel {
public:
    // `weights_source` names the weights in describe(), e.g. a file path.
    LearnedCostModel(GpuSpec spec, Weights weights, std::string weights_source);

    std::vector<double> predict(const std::vector<const ScheduleFeatures *> &batch) const override;
    std::string describe() const override;

    // The coefficients of each stage of a schedule (for inspection and tools).
    std::vector<TermVector> coefficients(const ScheduleFeatures &schedule) const;

    const AnalyticModel &analytic() const { return analytic_; }
    const Weights &weights() const { return weights_; }
    // Set when the weights were fit on other GPUs (see Weights::gpu_mismatch).
    const std::optional<std::string> &gpu_warning() const { return gpu_warning_; }

private:
    AnalyticModel analytic_;
    Weights weights_;
    LearnedInference inference_;
    std::string weights_source_;
    std::optional<std::string> gpu_warning_;
};

}  // namespace strata::costmodel
