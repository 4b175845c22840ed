#include "strata/costmodel/Trainer.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/SyntheticProfiles.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

using namespace strata::costmodel;

namespace {

// Mean |ln c_learned - ln c_true| over the stages of `data`, each term
// weighted by its share of the stage's true time: a term that never
// matters cannot be recovered, and need not be.
double coefficient_error(const LearnedModel &model, const std::vector<MeasuredPipeline> &data) {
    double error = 0, weight = 0;
    for (const MeasuredPipeline &p : data) {
        for (const MeasuredSchedule &s : p.schedules) {
            for (const StageFeatures &stage : s.stages) {
                const TermVector learned = model.coefficients({&stage.features})[0];
                const TermVector truth = synthetic_true_coefficients(stage.features);
                const TermVector terms = AnalyticModel::terms(stage.features, p.spec);
                double total = 0;
                for (int t = 0; t < kNumTerms; ++t) total += truth[t] * terms[t];
                for (int t = 0; t < kNumTerms; ++t) {
                    const double w = truth[t] * terms[t] / total;
                    error += w * std::abs(std::log(learned[t] / truth[t]));
                    weight += w;
                }
            }
        }
    }
    return error / weight;
}

}  // namespace

TEST_CASE("the relative-throughput loss is zero for exact predictions and has the right gradient") {
    const std::vector<double> measured = {2.0, 1.0, 4.0};
    CHECK(relative_throughput_loss(measured, measured, 0.1, nullptr) == 0);

    const std::vector<double> predicted = {1.5, 1.2, 7.0};
    std::vector<double> gradient;
    const double loss = relative_throughput_loss(measured, predicted, 0.1, &gradient);
    CHECK(loss > 0);
    for (size_t i = 0; i < predicted.size(); ++i) {
        std::vector<double> up = predicted, down = predicted;
        up[i] += 1e-6;
        down[i] -= 1e-6;
        const double numeric = (relative_throughput_loss(measured, up, 0.1, nullptr) -
                                relative_throughput_loss(measured, down, 0.1, nullptr)) /
                               2e-6;
        CHECK(gradient[i] == doctest::Approx(numeric).epsilon(1e-5));
    }
}

TEST_CASE("retraining on synthetic logs recovers the coefficients they were made with") {
    SyntheticOptions synthetic;
    synthetic.pipelines = 200;
    synthetic.schedules_per_pipeline = 24;
    synthetic.noise = 0.02;  // 2% measurement noise
    const std::vector<MeasuredPipeline> data = make_synthetic_pipelines(synthetic, GpuSpec::default_spec());

    TrainerOptions options;
    options.epochs = 60;
    int epochs_seen = 0;
    const auto start = std::chrono::steady_clock::now();
    const TrainingResult result = train_cost_model(data, options, [&](const EpochReport &e) {
        ++epochs_seen;
        CHECK(e.epoch == epochs_seen);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("synthetic retrain (%d train / %d validation pipelines, %.1f s):\n  learned  %s\n  analytic %s\n",
                result.train_pipelines, result.validation_pipelines, seconds,
                result.validation_learned.summary().c_str(), result.validation_analytic.summary().c_str());

    CHECK(epochs_seen == 60);
    CHECK(result.validation_pipelines == 40);
    // Held-out pipelines: ranked almost as the ground truth ranks them ...
    CHECK(result.validation_learned.pairwise_accuracy >= 0.95);
    CHECK(result.validation_learned.top5_recall >= 0.9);
    CHECK(result.validation_learned.median_relative_error < 0.1);
    // ... and clearly better than the analytic model, which does not know the truth.
    CHECK(result.validation_learned.pairwise_accuracy > result.validation_analytic.pairwise_accuracy + 0.02);
    CHECK(result.validation_analytic.median_relative_error > 0.25);

    // The coefficients themselves are recovered, on pipelines never seen.
    synthetic.seed = 77;
    synthetic.pipelines = 40;
    const std::vector<MeasuredPipeline> unseen = make_synthetic_pipelines(synthetic, GpuSpec::default_spec());
    const double learned_error = coefficient_error(result.weights.model, unseen);
    const double analytic_error = coefficient_error(LearnedModel::identity({4}, 1), unseen);
    std::printf("  coefficient error (weighted mean |ln c - ln c_true|): learned %.3f, analytic %.3f\n", learned_error,
                analytic_error);
    CHECK(learned_error < 0.12);
    CHECK(learned_error < 0.3 * analytic_error);
}

TEST_CASE("training and validation are split by pipeline, deterministically") {
    SyntheticOptions synthetic;
    synthetic.pipelines = 20;
    synthetic.schedules_per_pipeline = 4;
    std::vector<MeasuredPipeline> data = make_synthetic_pipelines(synthetic, GpuSpec::by_name("a100"));
    // The same pipelines measured on a second GPU must land on the same side.
    for (MeasuredPipeline p : make_synthetic_pipelines(synthetic, GpuSpec::by_name("h100"))) data.push_back(p);

    TrainerOptions options;
    options.epochs = 2;
    options.validation_fraction = 0.25;
    const TrainingResult a = train_cost_model(data, options);
    CHECK(a.validation_pipelines == 5);
    CHECK(a.train_pipelines == 15);
    CHECK(a.validation_learned.groups == 10);  // 5 pipelines × 2 GPUs
    CHECK(a.train_learned.groups == 30);
    const TrainingResult b = train_cost_model(data, options);
    CHECK(a.weights.to_text() == b.weights.to_text());
    CHECK(a.validation_hashes == b.validation_hashes);

    options.seed = 2;
    const TrainingResult c = train_cost_model(data, options);
    CHECK(c.validation_hashes != a.validation_hashes);

    options.validation_fraction = 0;
    CHECK(train_cost_model(data, options).validation_pipelines == 0);
}

TEST_CASE("training refuses unusable data and options") {
    TrainerOptions options;
    CHECK_THROWS_WITH_AS(train_cost_model({}, options), "no training data: no measured pipelines",
                         std::invalid_argument);

    SyntheticOptions synthetic;
    synthetic.pipelines = 3;
    synthetic.schedules_per_pipeline = 2;
    std::vector<MeasuredPipeline> data = make_synthetic_pipelines(synthetic, GpuSpec::default_spec());
    data[1].schedules[1].seconds = 0;
    const std::string expected = "pipeline 'synthetic_1_1', schedule " + data[1].schedules[1].label +
                                 ": measured time must be positive and finite";
    CHECK_THROWS_WITH_AS(train_cost_model(data, options), expected.c_str(), std::invalid_argument);

    data = make_synthetic_pipelines(synthetic, GpuSpec::default_spec());
    options.validation_fraction = 1.0;
    CHECK_THROWS_AS(train_cost_model(data, options), std::invalid_argument);
    options.validation_fraction = 0.2;
    options.epochs = 0;
    CHECK_THROWS_AS(train_cost_model(data, options), std::invalid_argument);
}
