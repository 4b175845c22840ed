// LearnedInference: a frozen single-precision copy of a LearnedModel for
// the search's hot path. The model is trained and stored in double
// precision; predicting with floats halves the cost of the SIMD log1p and
// matrix products, and changes coefficients by ~1e-7 relative — far below
// what a cost model can resolve. Identity weights still give exactly 1.
//
// Example:
//   LearnedInference fast(weights.model);
//   std::vector<TermVector> c;
//   fast.coefficients({&stage.features}, c);
#pragma once

#include "strata/costmodel/LearnedModel.h"

#include <Eigen/Dense>

#include <vector>

namespace strata::costmodel {

class LearnedInference {
public:
    explicit LearnedInference(const LearnedModel &model);

    // One coefficient vector per stage, written to `out` (resized).
    void coefficients(const std::vector<const FeatureVector *> &features, std::vector<TermVector> &out) const;

private:
    void evaluate_block(const std::vector<const FeatureVector *> &features, size_t first, size_t last,
                        std::vector<TermVector> &out) const;

    struct Layer {
        Eigen::MatrixXf weights;
        Eigen::VectorXf bias;
    };
    Eigen::VectorXf mean_;
    Eigen::VectorXf inverse_scale_;
    std::vector<Layer> layers_;
};

}  // namespace strata::costmodel
