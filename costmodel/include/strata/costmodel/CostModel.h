// CostModel: the one interface through which the search sees cost — a batch
// of scheduled pipelines (their per-stage features) in, predicted run times
// in seconds out. Implementations: AnalyticModel (pure analytic terms) and
// LearnedCostModel (the same terms scaled by learned per-stage coefficients).
//
// Example:
//   std::unique_ptr<CostModel> model = make_default_cost_model(GpuSpec::default_spec());
//   std::vector<double> seconds = model->predict({&candidate_a, &candidate_b});
#pragma once

#include "strata/costmodel/FeatureSchema.h"

#include <string>
#include <vector>

namespace strata::costmodel {

class CostModel {
public:
    virtual ~CostModel() = default;

    // One prediction per schedule, in order.
    virtual std::vector<double> predict(const std::vector<const ScheduleFeatures *> &batch) const = 0;

    // One line for logs: which model, which GPU, which weights.
    virtual std::string describe() const = 0;
};

}  // namespace strata::costmodel
