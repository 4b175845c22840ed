#include "strata/costmodel/DefaultCostModel.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/SyntheticProfiles.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

using namespace strata::costmodel;

namespace {

// Sets STRATA_WEIGHTS for the scope of a test.
class WeightsVariable {
public:
    explicit WeightsVariable(const char *value) { setenv(kWeightsEnvironmentVariable, value, 1); }
    ~WeightsVariable() { unsetenv(kWeightsEnvironmentVariable); }
};

}  // namespace

TEST_CASE("the shipped default weights load and are the pure analytic model") {
    unsetenv(kWeightsEnvironmentVariable);
    const NamedWeights named = load_default_weights();
    CHECK(named.source == "built-in default.json");
    CHECK(named.weights.model.layers().back().weights.isZero(0.0));
    CHECK(named.weights.model.layers().back().bias.isZero(0.0));

    SyntheticOptions options;
    options.pipelines = 5;
    const GpuSpec &spec = GpuSpec::by_name("h200");
    std::vector<const ScheduleFeatures *> batch;
    const auto pipelines = make_synthetic_pipelines(options, spec);
    for (const auto &p : pipelines) {
        for (const auto &s : p.schedules) batch.push_back(&s.stages);
    }
    CHECK(make_default_cost_model(spec)->predict(batch) == AnalyticModel(spec).predict(batch));
}

TEST_CASE("STRATA_WEIGHTS selects another weights file") {
    const std::string path = "default_cost_model_test.json";
    LearnedModel model = LearnedModel::identity({4}, 1);
    model.layers().back().bias.setConstant(std::log(3.0));
    Weights{model, {{"tool", "test"}}}.write_file(path);
    {
        WeightsVariable variable(path.c_str());
        const NamedWeights named = load_default_weights();
        CHECK(named.source == path);
        CHECK(make_default_cost_model(GpuSpec::default_spec())->describe().find(path) != std::string::npos);
    }
    std::remove(path.c_str());
}

TEST_CASE("a bad STRATA_WEIGHTS file is an error naming the file and the variable") {
    WeightsVariable variable("/nonexistent/weights.json");
    CHECK_THROWS_WITH_AS(load_default_weights(),
                         "weights /nonexistent/weights.json: cannot open the file (named by STRATA_WEIGHTS)",
                         WeightsError);
}
