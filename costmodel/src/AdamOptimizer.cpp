#include "strata/costmodel/AdamOptimizer.h"

#include <cmath>
#include <stdexcept>

namespace strata::costmodel {

namespace {

std::vector<LearnedModel::Layer> zeros_like(const std::vector<LearnedModel::Layer> &shapes) {
    std::vector<LearnedModel::Layer> zeros;
    for (const auto &layer : shapes) {
        zeros.push_back({Eigen::MatrixXd::Zero(layer.weights.rows(), layer.weights.cols()),
                         Eigen::VectorXd::Zero(layer.bias.size())});
    }
    return zeros;
}

template <typename Parameter>
void update(Parameter &p, const Parameter &g, Parameter &m, Parameter &v, double beta1, double beta2, double step_size,
            double epsilon, double second_correction) {
    m = beta1 * m + (1 - beta1) * g;
    v = beta2 * v + (1 - beta2) * g.cwiseProduct(g);
    p.array() -= step_size * m.array() / ((v.array() / second_correction).sqrt() + epsilon);
}

}  // namespace

AdamOptimizer::AdamOptimizer(const std::vector<LearnedModel::Layer> &shapes, double learning_rate, double beta1,
                             double beta2, double epsilon)
    : learning_rate_(learning_rate),
      beta1_(beta1),
      beta2_(beta2),
      epsilon_(epsilon),
      first_moment_(zeros_like(shapes)),
      second_moment_(zeros_like(shapes)) {}

void AdamOptimizer::step(std::vector<LearnedModel::Layer> &parameters,
                         const std::vector<LearnedModel::Layer> &gradient) {
    if (parameters.size() != first_moment_.size() || gradient.size() != first_moment_.size()) {
        throw std::invalid_argument("AdamOptimizer: the model has a different number of layers than the optimizer");
    }
    for (size_t l = 0; l < parameters.size(); ++l) {
        if (parameters[l].weights.rows() != first_moment_[l].weights.rows() ||
            parameters[l].weights.cols() != first_moment_[l].weights.cols() ||
            gradient[l].weights.rows() != first_moment_[l].weights.rows() ||
            gradient[l].weights.cols() != first_moment_[l].weights.cols()) {
            throw std::invalid_argument("AdamOptimizer: layer " + std::to_string(l) + " changed shape");
        }
    }
    ++steps_;
    // Bias correction folded into the step size (first moment) and the denominator (second).
    const double first_correction = 1 - std::pow(beta1_, steps_);
    const double second_correction = 1 - std::pow(beta2_, steps_);
    const double step_size = learning_rate_ / first_correction;
    for (size_t l = 0; l < parameters.size(); ++l) {
        update(parameters[l].weights, gradient[l].weights, first_moment_[l].weights, second_moment_[l].weights, beta1_,
               beta2_, step_size, epsilon_, second_correction);
        update(parameters[l].bias, gradient[l].bias, first_moment_[l].bias, second_moment_[l].bias, beta1_, beta2_,
               step_size, epsilon_, second_correction);
    }
}

}  // namespace strata::costmodel
