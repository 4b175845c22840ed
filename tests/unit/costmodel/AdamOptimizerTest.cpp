#include "strata/costmodel/AdamOptimizer.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace strata::costmodel;

namespace {

std::vector<LearnedModel::Layer> one_layer(double value) {
    return {LearnedModel::Layer{Eigen::MatrixXd::Constant(2, 3, value), Eigen::VectorXd::Constant(2, value)}};
}

}  // namespace

TEST_CASE("the first Adam step moves every parameter by the learning rate against its gradient") {
    std::vector<LearnedModel::Layer> p = one_layer(1.0);
    std::vector<LearnedModel::Layer> g = one_layer(0.0);
    g[0].weights(0, 0) = 250.0;  // the step does not depend on the gradient's scale
    g[0].weights(1, 2) = -0.001;
    AdamOptimizer adam(p, 0.01);
    adam.step(p, g);
    CHECK(p[0].weights(0, 0) == doctest::Approx(0.99));
    CHECK(p[0].weights(1, 2) == doctest::Approx(1.01));
    CHECK(p[0].weights(0, 1) == 1.0);  // zero gradient, no move
    CHECK(adam.steps() == 1);
}

TEST_CASE("Adam minimizes a quadratic") {
    std::vector<LearnedModel::Layer> p = one_layer(5.0);
    AdamOptimizer adam(p, 0.05);
    for (int i = 0; i < 2000; ++i) {
        std::vector<LearnedModel::Layer> g = p;  // d/dp of (p - 2)^2 / 2
        g[0].weights.array() -= 2.0;
        g[0].bias.array() -= 2.0;
        adam.step(p, g);
    }
    CHECK(p[0].weights.maxCoeff() == doctest::Approx(2.0).epsilon(1e-3));
    CHECK(p[0].bias.minCoeff() == doctest::Approx(2.0).epsilon(1e-3));
}

TEST_CASE("shapes must not change under the optimizer") {
    std::vector<LearnedModel::Layer> p = one_layer(1.0);
    AdamOptimizer adam(p, 0.01);
    std::vector<LearnedModel::Layer> wrong = {
        LearnedModel::Layer{Eigen::MatrixXd::Zero(3, 3), Eigen::VectorXd::Zero(3)}};
    CHECK_THROWS_AS(adam.step(p, wrong), std::invalid_argument);
    CHECK_THROWS_AS(adam.step(p, {}), std::invalid_argument);
}
