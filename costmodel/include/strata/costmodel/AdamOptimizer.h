// AdamOptimizer: Adam (Kingma & Ba, 2015) over the layers of a LearnedModel —
// per-parameter step sizes from running averages of the gradient and its
// square, with bias correction, which copes with the very different scales
// of the gradients of the hidden and output layers.
//
// Example:
//   AdamOptimizer adam(model.layers(), /*learning_rate=*/3e-3);
//   std::vector<LearnedModel::Layer> gradient = model.zero_like();
//   ... model.backward(activations, d_log_c, gradient) ...
//   adam.step(model.layers(), gradient);
#pragma once

#include "strata/costmodel/LearnedModel.h"

#include <vector>

namespace strata::costmodel {

class AdamOptimizer {
public:
    AdamOptimizer(const std::vector<LearnedModel::Layer> &shapes, double learning_rate, double beta1 = 0.9,
                  double beta2 = 0.999, double epsilon = 1e-8);

    // parameters -= step(gradient); throws std::invalid_argument on a shape mismatch.
    void step(std::vector<LearnedModel::Layer> &parameters, const std::vector<LearnedModel::Layer> &gradient);

    void set_learning_rate(double learning_rate) { learning_rate_ = learning_rate; }
    double learning_rate() const { return learning_rate_; }
    int steps() const { return steps_; }

private:
    double learning_rate_, beta1_, beta2_, epsilon_;
    int steps_ = 0;
    std::vector<LearnedModel::Layer> first_moment_, second_moment_;
};

}  // namespace strata::costmodel
