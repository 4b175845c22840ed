#include "strata/costmodel/LearnedModel.h"

#include "strata/costmodel/SyntheticProfiles.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace strata::costmodel;

namespace {

std::vector<FeatureVector> some_stages(int count) {
    SyntheticOptions options;
    options.pipelines = count;
    options.schedules_per_pipeline = 1;
    options.max_stages = 1;
    std::vector<FeatureVector> out;
    for (const MeasuredPipeline &p : make_synthetic_pipelines(options, GpuSpec::default_spec())) {
        out.push_back(p.schedules[0].stages[0].features);
    }
    return out;
}

std::vector<const FeatureVector *> pointers(const std::vector<FeatureVector> &v) {
    std::vector<const FeatureVector *> out;
    for (const FeatureVector &f : v) out.push_back(&f);
    return out;
}

// A model with every parameter random, so that no path is trivially zero.
LearnedModel random_model(uint64_t seed) {
    LearnedModel model = LearnedModel::identity({8, 6}, seed);
    LearnedModel donor = LearnedModel::identity({8, 6, kNumTerms}, seed + 1);
    model.layers().back().weights = 0.3 * donor.layers()[2].weights;
    for (auto &layer : model.layers()) layer.bias = Eigen::VectorXd::LinSpaced(layer.bias.size(), -0.2, 0.3);
    model.set_normalization(Eigen::VectorXd::Constant(kNumFeatures, 1.0), Eigen::VectorXd::Constant(kNumFeatures, 4.0));
    return model;
}

}  // namespace

TEST_CASE("the identity model gives coefficients of exactly one") {
    const LearnedModel model = LearnedModel::identity({32, 32}, 7);
    const std::vector<FeatureVector> stages = some_stages(20);
    for (const TermVector &c : model.coefficients(pointers(stages))) {
        for (int t = 0; t < kNumTerms; ++t) CHECK(c[t] == 1.0);
    }
    CHECK(model.parameter_count() == (kNumFeatures * 32 + 32) + (32 * 32 + 32) + (32 * kNumTerms + kNumTerms));
}

TEST_CASE("the same seed gives the same model") {
    CHECK(LearnedModel::identity({16}, 3).layers()[0].weights == LearnedModel::identity({16}, 3).layers()[0].weights);
    CHECK(LearnedModel::identity({16}, 3).layers()[0].weights != LearnedModel::identity({16}, 4).layers()[0].weights);
}

TEST_CASE("the batched forward pass equals a per-stage computation written out") {
    const LearnedModel model = random_model(11);
    const std::vector<FeatureVector> stages = some_stages(5);
    const std::vector<TermVector> batched = model.coefficients(pointers(stages));
    for (size_t s = 0; s < stages.size(); ++s) {
        std::vector<double> h(kNumFeatures);
        for (int i = 0; i < kNumFeatures; ++i) {
            const double x = stages[s][i];
            h[i] = ((x < 0 ? -1 : 1) * std::log1p(std::abs(x)) - model.mean()[i]) / model.scale()[i];
        }
        for (size_t l = 0; l < model.layers().size(); ++l) {
            const auto &layer = model.layers()[l];
            std::vector<double> next(size_t(layer.weights.rows()));
            for (int r = 0; r < layer.weights.rows(); ++r) {
                double sum = layer.bias[r];
                for (int c = 0; c < layer.weights.cols(); ++c) sum += layer.weights(r, c) * h[c];
                next[r] = l + 1 < model.layers().size() ? std::max(0.0, sum) : sum;
            }
            h = next;
        }
        for (int t = 0; t < kNumTerms; ++t) CHECK(batched[s][t] == doctest::Approx(std::exp(h[t])).epsilon(1e-12));
    }
}

TEST_CASE("the backward pass agrees with finite differences") {
    LearnedModel model = random_model(5);
    const std::vector<FeatureVector> stages = some_stages(4);
    const Eigen::MatrixXd x = LearnedModel::transform(pointers(stages));
    // loss = Σ w ∘ log_c for a fixed random w: d loss / d log_c = w.
    const Eigen::MatrixXd w = Eigen::MatrixXd::Random(kNumTerms, x.cols());
    auto loss = [&](const LearnedModel &m) { return (w.array() * m.forward(x, nullptr).array()).sum(); };

    LearnedModel::Activations activations;
    model.forward(x, &activations);
    std::vector<LearnedModel::Layer> gradient = model.zero_like();
    model.backward(activations, w, gradient);

    const double h = 1e-6;
    for (size_t l = 0; l < model.layers().size(); ++l) {
        for (auto [r, c] : {std::pair{0, 0}, std::pair{1, 2}, std::pair{2, 5}}) {
            LearnedModel bumped = model;
            bumped.layers()[l].weights(r, c) += h;
            LearnedModel lowered = model;
            lowered.layers()[l].weights(r, c) -= h;
            const double numeric = (loss(bumped) - loss(lowered)) / (2 * h);
            CAPTURE(l);
            CHECK(gradient[l].weights(r, c) == doctest::Approx(numeric).epsilon(1e-5));
        }
        LearnedModel bumped = model;
        bumped.layers()[l].bias[1] += h;
        LearnedModel lowered = model;
        lowered.layers()[l].bias[1] -= h;
        CHECK(gradient[l].bias[1] == doctest::Approx((loss(bumped) - loss(lowered)) / (2 * h)).epsilon(1e-5));
    }
}

TEST_CASE("coefficients stay finite when outputs would overflow") {
    LearnedModel model = LearnedModel::identity({4}, 1);
    model.layers().back().bias.setConstant(1000.0);
    const std::vector<FeatureVector> stages = some_stages(1);
    const TermVector c = model.coefficients(pointers(stages))[0];
    CHECK(c[0] == doctest::Approx(std::exp(LearnedModel::kMaxLogCoefficient)));
}

TEST_CASE("shapes that do not chain from features to terms are refused") {
    const LearnedModel ok = LearnedModel::identity({8}, 1);
    auto layers = ok.layers();
    layers[1].weights = Eigen::MatrixXd::Zero(kNumTerms + 1, 8);
    layers[1].bias = Eigen::VectorXd::Zero(kNumTerms + 1);
    CHECK_THROWS_WITH_AS(LearnedModel(ok.mean(), ok.scale(), layers), doctest::Contains("one per term"),
                         std::invalid_argument);
    layers = ok.layers();
    layers[0].bias = Eigen::VectorXd::Zero(3);
    CHECK_THROWS_WITH_AS(LearnedModel(ok.mean(), ok.scale(), layers), doctest::Contains("layer 0"),
                         std::invalid_argument);
    CHECK_THROWS_AS(LearnedModel(ok.mean(), -ok.scale(), ok.layers()), std::invalid_argument);
    CHECK_THROWS_AS(LearnedModel(ok.mean(), ok.scale(), {}), std::invalid_argument);
}
