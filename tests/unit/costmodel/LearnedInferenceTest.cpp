#include "strata/costmodel/LearnedInference.h"

#include "strata/costmodel/SyntheticProfiles.h"

#include <doctest/doctest.h>

using namespace strata::costmodel;

namespace {

std::vector<FeatureVector> stages(int pipelines) {
    SyntheticOptions options;
    options.pipelines = pipelines;
    options.schedules_per_pipeline = 4;
    std::vector<FeatureVector> out;
    for (const MeasuredPipeline &p : make_synthetic_pipelines(options, GpuSpec::default_spec())) {
        for (const MeasuredSchedule &s : p.schedules) {
            for (const StageFeatures &stage : s.stages) out.push_back(stage.features);
        }
    }
    return out;
}

std::vector<const FeatureVector *> pointers(const std::vector<FeatureVector> &v) {
    std::vector<const FeatureVector *> out;
    for (const FeatureVector &f : v) out.push_back(&f);
    return out;
}

}  // namespace

TEST_CASE("single-precision inference agrees with the double-precision model") {
    LearnedModel model = LearnedModel::identity({24, 16}, 3);
    model.layers().back().weights.setRandom();
    model.layers().back().weights *= 0.5;
    model.layers().back().bias.setRandom();
    model.set_normalization(Eigen::VectorXd::Constant(kNumFeatures, 2.0), Eigen::VectorXd::Constant(kNumFeatures, 3.0));
    const std::vector<FeatureVector> features = stages(30);  // more stages than one block
    REQUIRE(features.size() > 100);
    const std::vector<TermVector> expected = model.coefficients(pointers(features));
    std::vector<TermVector> fast;
    LearnedInference(model).coefficients(pointers(features), fast);
    REQUIRE(fast.size() == expected.size());
    for (size_t s = 0; s < fast.size(); ++s) {
        for (int t = 0; t < kNumTerms; ++t) CHECK(fast[s][t] == doctest::Approx(expected[s][t]).epsilon(1e-4));
    }
}

TEST_CASE("identity weights give exactly one in single precision too") {
    const std::vector<FeatureVector> features = stages(5);
    std::vector<TermVector> c;
    LearnedInference(LearnedModel::identity({24, 16}, 1)).coefficients(pointers(features), c);
    for (const TermVector &v : c) {
        for (int t = 0; t < kNumTerms; ++t) CHECK(v[t] == 1.0);
    }
    LearnedInference(LearnedModel::identity({4}, 1)).coefficients({}, c);
    CHECK(c.empty());
}
