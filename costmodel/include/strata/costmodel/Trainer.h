// Trainer: fits a LearnedModel to measured schedules so that analytic terms
// × predicted coefficients reproduce the measured times — above all their
// order within each pipeline.
//
// Data: MeasuredPipelines (one pipeline on one GPU each; terms come from
// AnalyticModel with that GPU's spec). The split into training and
// validation is by pipeline hash, seeded, so no pipeline is on both sides.
//
// Loss per pipeline group g with measured times t_i, predictions p_i and
// t* = min_i t_i (the fastest measured schedule):
//
//   L_g = mean_i (t*/t_i - t*/p_i)^2  +  λ · mean_i (ln p_i - ln t_i)^2
//
// The first term compares throughput relative to the fastest schedule, so
// what matters most is getting the fast schedules right; the second (λ
// small, default 0.1) keeps absolute times anchored and gives a gradient
// when a prediction is far too slow, where the first term's vanishes.
// Optimized with Adam over mini-batches of pipeline groups; the weights of
// the epoch with the lowest validation loss are kept.
//
// Example:
//   TrainerOptions options;
//   options.epochs = 100;
//   TrainingResult result = train_cost_model(pipelines, options, [](const EpochReport &e) {
//       std::printf("epoch %d loss %.4f\n", e.epoch, e.train_loss);
//   });
//   result.weights.write_file("weights.json");
#pragma once

#include "strata/costmodel/RankingMetrics.h"
#include "strata/costmodel/TrainingData.h"
#include "strata/costmodel/Weights.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace strata::costmodel {

struct TrainerOptions {
    std::vector<int> hidden_sizes = {24, 16};
    int epochs = 150;
    double learning_rate = 3e-3;
    int pipelines_per_batch = 8;
    double validation_fraction = 0.2;
    uint64_t seed = 1;
    double log_error_weight = 0.1;  // λ above
    // Start from these weights (and keep their normalization) instead of identity.
    std::optional<LearnedModel> initial;
};

struct EpochReport {
    int epoch = 0;  // from 1
    double train_loss = 0;
    double validation_loss = 0;  // 0 without validation data
    double validation_pairwise_accuracy = 0;
    double seconds = 0;  // since training started
};

struct TrainingResult {
    Weights weights;
    int best_epoch = 0;
    int train_pipelines = 0;  // distinct pipeline hashes
    int validation_pipelines = 0;
    RankingMetrics train_learned;
    RankingMetrics validation_learned;
    RankingMetrics validation_analytic;  // identity coefficients, for comparison
    // Pipeline hashes on the validation side.
    std::vector<ContentHash> validation_hashes;
};

// Throws std::invalid_argument on empty data or invalid options.
TrainingResult train_cost_model(const std::vector<MeasuredPipeline> &data, const TrainerOptions &options,
                                const std::function<void(const EpochReport &)> &progress = {});

// The loss above for one group, and d loss / d prediction (resized like `predicted`).
double relative_throughput_loss(const std::vector<double> &measured, const std::vector<double> &predicted,
                                double log_error_weight, std::vector<double> *d_predicted);

}  // namespace strata::costmodel
