// LearnedModel: a small multilayer perceptron that maps the features of a
// stage to one coefficient per analytic cost term (see TermCombination.h).
//
//   input  z = (signed_log1p(features) - mean) / scale     one column per stage
//   hidden h = relu(W h_prev + b)                          e.g. 2 layers of 32
//   output y = W h + b,  coefficient = exp(clamp(y))       kNumTerms rows
//
// An output layer of zeros gives coefficients of exactly 1: the pure
// analytic model. Stages are evaluated in batches (one matrix product per
// layer over all stages of all candidate schedules); the backward pass gives
// the parameter gradients that training needs.
//
// Example:
//   LearnedModel model = LearnedModel::identity({32, 32}, /*seed=*/1);
//   std::vector<TermVector> c = model.coefficients({&stage_a.features, &stage_b.features});
//   // c[0][index(Term::Dram)] == 1.0
#pragma once

#include "strata/costmodel/FeatureSchema.h"

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace strata::costmodel {

class LearnedModel {
public:
    struct Layer {
        Eigen::MatrixXd weights;  // outputs × inputs
        Eigen::VectorXd bias;     // outputs
    };

    // Activations kept by a forward pass for the backward pass.
    struct Activations {
        std::vector<Eigen::MatrixXd> inputs;  // the input of each layer (z, then each hidden output)
        Eigen::MatrixXd output;               // log coefficients before clamping
    };

    // Outputs are clamped to ±kMaxLogCoefficient so exp() stays finite.
    static constexpr double kMaxLogCoefficient = 20.0;

    // Throws std::invalid_argument if the shapes do not chain from
    // kNumFeatures inputs to kNumTerms outputs, or a scale is not positive.
    LearnedModel(Eigen::VectorXd mean, Eigen::VectorXd scale, std::vector<Layer> layers);

    // Hidden layers He-initialized from `seed`, output layer zero, identity
    // normalization: coefficients of exactly 1, and a starting point for training.
    static LearnedModel identity(const std::vector<int> &hidden_sizes, uint64_t seed);

    // Features → signed log1p, one column per stage (before normalization).
    static Eigen::MatrixXd transform(const std::vector<const FeatureVector *> &features);

    // Log coefficients (kNumTerms × stages) for transformed features; keeps
    // what backward() needs when `keep` is non-null.
    Eigen::MatrixXd forward(const Eigen::MatrixXd &transformed, Activations *keep) const;

    // Given d loss / d log coefficient (kNumTerms × stages, for the clamped
    // output), accumulates d loss / d parameter into `gradient` (same shapes
    // as layers(); zero-initialize it with zero_like()).
    void backward(const Activations &activations, const Eigen::MatrixXd &d_log_coefficients,
                  std::vector<Layer> &gradient) const;

    // One coefficient vector per stage.
    std::vector<TermVector> coefficients(const std::vector<const FeatureVector *> &features) const;

    const Eigen::VectorXd &mean() const { return mean_; }
    const Eigen::VectorXd &scale() const { return scale_; }
    // Sets the normalization; throws std::invalid_argument on a wrong size or non-positive scale.
    void set_normalization(Eigen::VectorXd mean, Eigen::VectorXd scale);

    const std::vector<Layer> &layers() const { return layers_; }
    std::vector<Layer> &layers() { return layers_; }
    std::vector<Layer> zero_like() const;
    int64_t parameter_count() const;

private:
    Eigen::VectorXd mean_;
    Eigen::VectorXd scale_;
    std::vector<Layer> layers_;
};

}  // namespace strata::costmodel
