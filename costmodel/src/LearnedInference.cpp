#include "strata/costmodel/LearnedInference.h"

#include <algorithm>
#include <cmath>

namespace strata::costmodel {

LearnedInference::LearnedInference(const LearnedModel &model)
    : mean_(model.mean().cast<float>()), inverse_scale_(model.scale().cwiseInverse().cast<float>()) {
    for (const LearnedModel::Layer &layer : model.layers()) {
        layers_.push_back(Layer{layer.weights.cast<float>(), layer.bias.cast<float>()});
    }
}

void LearnedInference::coefficients(const std::vector<const FeatureVector *> &features,
                                    std::vector<TermVector> &out) const {
    out.resize(features.size());
    // Blocks of stages small enough that every intermediate matrix stays in L1.
    constexpr size_t kBlock = 32;
    for (size_t first = 0; first < features.size(); first += kBlock) {
        evaluate_block(features, first, std::min(features.size(), first + kBlock), out);
    }
}

void LearnedInference::evaluate_block(const std::vector<const FeatureVector *> &features, size_t first, size_t last,
                                      std::vector<TermVector> &out) const {
    const Eigen::Index n = Eigen::Index(last - first);
    Eigen::MatrixXf h(kNumFeatures, n);
    for (Eigen::Index s = 0; s < n; ++s) {
        h.col(s) = Eigen::Map<const Eigen::VectorXd>(features[first + size_t(s)]->data(), kNumFeatures).cast<float>();
    }
    // The same transform as LearnedModel::transform, then the normalization.
    // log(1 + |x|) rather than log1p: Eigen vectorizes log but not log1p for
    // floats, and the difference (below 1e-7 for x < 1e-7) is far below float
    // resolution of what follows.
    const Eigen::ArrayXXf magnitude = (h.array().abs() + 1.0f).log();
    h = (h.array() < 0.0f).select(-magnitude, magnitude).matrix();
    h = ((h.colwise() - mean_).array().colwise() * inverse_scale_.array()).matrix();
    for (size_t l = 0; l < layers_.size(); ++l) {
        Eigen::MatrixXf next = layers_[l].weights * h;
        next.colwise() += layers_[l].bias;
        h = l + 1 < layers_.size() ? next.cwiseMax(0.0f) : std::move(next);
    }
    const float limit = float(LearnedModel::kMaxLogCoefficient);
    const Eigen::ArrayXXf c = h.array().max(-limit).min(limit).exp();
    for (Eigen::Index s = 0; s < n; ++s) {
        for (int t = 0; t < kNumTerms; ++t) out[first + size_t(s)][t] = double(c(t, s));
    }
}

}  // namespace strata::costmodel
