// RankingMetrics: how well predicted times order the schedules of each
// pipeline, which is what the search needs from a cost model, and how close
// they are in absolute terms.
//
//   pairwise accuracy  fraction of schedule pairs of one pipeline (measured
//                      times differ) that the prediction orders the same way;
//                      a predicted tie counts one half
//   top-k recall       fraction of pipelines whose fastest measured schedule
//                      is among the k predicted fastest
//   top-1 within 10%   fraction of pipelines whose predicted fastest schedule
//                      measures within 10% of the fastest measured one (what
//                      a search that trusts the model would lose at most)
//   median rel. error  median over schedules of |predicted - measured| / measured
//
// Example:
//   RankingMetrics m = ranking_metrics({{measured_a, predicted_a}, {measured_b, predicted_b}});
//   std::printf("%s\n", m.summary().c_str());
#pragma once

#include <string>
#include <vector>

namespace strata::costmodel {

// The measured and predicted times of the schedules of one pipeline (on one GPU).
struct PredictedGroup {
    std::vector<double> measured;
    std::vector<double> predicted;
};

struct RankingMetrics {
    double pairwise_accuracy = 0;
    double top1_recall = 0;
    double top5_recall = 0;
    double top1_within_10_percent = 0;
    double median_relative_error = 0;
    long pairs = 0;
    int groups = 0;
    long schedules = 0;

    // e.g. "pairwise 0.962 (12400 pairs), top-1 0.810 (within 10%: 0.900), top-5 0.985, median rel. error
    // 0.071 (40 pipelines, 960 schedules)"
    std::string summary() const;
};

// Throws std::invalid_argument if a group's two vectors differ in length.
RankingMetrics ranking_metrics(const std::vector<PredictedGroup> &groups);

}  // namespace strata::costmodel
