#include "strata/costmodel/LearnedModel.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace strata::costmodel {

namespace {

void check_normalization(const Eigen::VectorXd &mean, const Eigen::VectorXd &scale) {
    if (mean.size() != kNumFeatures || scale.size() != kNumFeatures) {
        throw std::invalid_argument("normalization has " + std::to_string(mean.size()) + " means and " +
                                    std::to_string(scale.size()) + " scales; the feature schema has " +
                                    std::to_string(kNumFeatures) + " features");
    }
    for (int i = 0; i < kNumFeatures; ++i) {
        if (!(scale[i] > 0) || !std::isfinite(scale[i]) || !std::isfinite(mean[i])) {
            throw std::invalid_argument("normalization of feature '" + feature_names()[i] +
                                        "' needs a finite mean and a positive finite scale");
        }
    }
}

}  // namespace

LearnedModel::LearnedModel(Eigen::VectorXd mean, Eigen::VectorXd scale, std::vector<Layer> layers)
    : layers_(std::move(layers)) {
    set_normalization(std::move(mean), std::move(scale));
    if (layers_.empty()) throw std::invalid_argument("a learned model needs at least one layer");
    Eigen::Index inputs = kNumFeatures;
    for (size_t l = 0; l < layers_.size(); ++l) {
        const Layer &layer = layers_[l];
        if (layer.weights.cols() != inputs || layer.bias.size() != layer.weights.rows()) {
            throw std::invalid_argument("layer " + std::to_string(l) + " is " + std::to_string(layer.weights.rows()) +
                                        "×" + std::to_string(layer.weights.cols()) + " with " +
                                        std::to_string(layer.bias.size()) + " biases; expected " +
                                        std::to_string(inputs) + " inputs and one bias per output");
        }
        inputs = layer.weights.rows();
    }
    if (inputs != kNumTerms) {
        throw std::invalid_argument("the last layer has " + std::to_string(inputs) +
                                    " outputs; expected one per term (" + std::to_string(kNumTerms) + ")");
    }
}

void LearnedModel::set_normalization(Eigen::VectorXd mean, Eigen::VectorXd scale) {
    check_normalization(mean, scale);
    mean_ = std::move(mean);
    scale_ = std::move(scale);
}

LearnedModel LearnedModel::identity(const std::vector<int> &hidden_sizes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Layer> layers;
    int inputs = kNumFeatures;
    for (int size : hidden_sizes) {
        if (size <= 0) throw std::invalid_argument("hidden layer sizes must be positive");
        // He initialization keeps ReLU activations at unit scale; the values
        // come from the 64-bit Mersenne twister through a plain transform so
        // that a seed gives the same weights on every platform.
        const double bound = std::sqrt(6.0 / inputs);
        Layer layer{Eigen::MatrixXd(size, inputs), Eigen::VectorXd::Zero(size)};
        for (int r = 0; r < size; ++r) {
            for (int c = 0; c < inputs; ++c) {
                const double unit = double(rng() >> 11) * (1.0 / double(1ull << 53));
                layer.weights(r, c) = (2 * unit - 1) * bound;
            }
        }
        layers.push_back(std::move(layer));
        inputs = size;
    }
    layers.push_back(Layer{Eigen::MatrixXd::Zero(kNumTerms, inputs), Eigen::VectorXd::Zero(kNumTerms)});
    return LearnedModel(Eigen::VectorXd::Zero(kNumFeatures), Eigen::VectorXd::Ones(kNumFeatures), std::move(layers));
}

Eigen::MatrixXd LearnedModel::transform(const std::vector<const FeatureVector *> &features) {
    Eigen::MatrixXd x(kNumFeatures, Eigen::Index(features.size()));
    for (size_t s = 0; s < features.size(); ++s) {
        x.col(Eigen::Index(s)) = Eigen::Map<const Eigen::VectorXd>(features[s]->data(), kNumFeatures);
    }
    // Counts span many orders of magnitude; log1p keeps them comparable and
    // leaves fractions in [0, 1] nearly linear. Signed so that a negative
    // feature (none today) would not be a NaN.
    return x.array().sign() * x.array().abs().log1p();
}

Eigen::MatrixXd LearnedModel::forward(const Eigen::MatrixXd &transformed, Activations *keep) const {
    Eigen::MatrixXd h = (transformed.colwise() - mean_).array().colwise() / scale_.array();
    if (keep) keep->inputs.clear();
    for (size_t l = 0; l < layers_.size(); ++l) {
        Eigen::MatrixXd next = layers_[l].weights * h;
        next.colwise() += layers_[l].bias;
        if (l + 1 < layers_.size()) next = next.cwiseMax(0.0);
        if (keep) keep->inputs.push_back(std::move(h));
        h = std::move(next);
    }
    if (keep) keep->output = h;
    return h.cwiseMax(-kMaxLogCoefficient).cwiseMin(kMaxLogCoefficient);
}

void LearnedModel::backward(const Activations &activations, const Eigen::MatrixXd &d_log_coefficients,
                            std::vector<Layer> &gradient) const {
    // The clamp passes no gradient where it is active.
    Eigen::MatrixXd delta =
        (activations.output.array().abs() < kMaxLogCoefficient).cast<double>() * d_log_coefficients.array();
    for (size_t l = layers_.size(); l-- > 0;) {
        const Eigen::MatrixXd &input = activations.inputs[l];
        gradient[l].weights.noalias() += delta * input.transpose();
        gradient[l].bias += delta.rowwise().sum();
        if (l == 0) break;
        // The input of layer l is relu of layer l-1's pre-activation: zero where it was clamped.
        Eigen::MatrixXd back = layers_[l].weights.transpose() * delta;
        delta = (input.array() > 0).cast<double>() * back.array();
    }
}

std::vector<TermVector> LearnedModel::coefficients(const std::vector<const FeatureVector *> &features) const {
    const Eigen::MatrixXd log_c = forward(transform(features), nullptr);
    std::vector<TermVector> out(features.size());
    for (size_t s = 0; s < features.size(); ++s) {
        for (int t = 0; t < kNumTerms; ++t) out[s][t] = std::exp(log_c(t, Eigen::Index(s)));
    }
    return out;
}

std::vector<LearnedModel::Layer> LearnedModel::zero_like() const {
    std::vector<Layer> zeros;
    for (const Layer &layer : layers_) {
        zeros.push_back(Layer{Eigen::MatrixXd::Zero(layer.weights.rows(), layer.weights.cols()),
                              Eigen::VectorXd::Zero(layer.bias.size())});
    }
    return zeros;
}

int64_t LearnedModel::parameter_count() const {
    int64_t n = 0;
    for (const Layer &layer : layers_) n += layer.weights.size() + layer.bias.size();
    return n;
}

}  // namespace strata::costmodel
