#include "strata/costmodel/LearnedCostModel.h"

#include "strata/costmodel/SyntheticProfiles.h"

#include <doctest/doctest.h>

using namespace strata::costmodel;

namespace {

std::vector<ScheduleFeatures> schedules() {
    SyntheticOptions options;
    options.pipelines = 10;
    options.schedules_per_pipeline = 3;
    std::vector<ScheduleFeatures> out;
    for (const MeasuredPipeline &p : make_synthetic_pipelines(options, GpuSpec::by_name("h100"))) {
        for (const MeasuredSchedule &s : p.schedules) out.push_back(s.stages);
    }
    return out;
}

std::vector<const ScheduleFeatures *> batch_of(const std::vector<ScheduleFeatures> &v) {
    std::vector<const ScheduleFeatures *> out;
    for (const ScheduleFeatures &s : v) out.push_back(&s);
    return out;
}

}  // namespace

TEST_CASE("with identity weights the learned model predicts exactly what the analytic model does") {
    const GpuSpec &spec = GpuSpec::by_name("h100");
    const LearnedCostModel learned(spec, Weights{LearnedModel::identity({32, 32}, 1)}, "identity");
    const AnalyticModel analytic(spec);
    const std::vector<ScheduleFeatures> all = schedules();
    const std::vector<double> a = analytic.predict(batch_of(all));
    const std::vector<double> l = learned.predict(batch_of(all));
    REQUIRE(a.size() == all.size());
    CHECK(l == a);
}

TEST_CASE("learned coefficients scale the analytic terms of each stage") {
    const GpuSpec &spec = GpuSpec::by_name("h100");
    LearnedModel model = LearnedModel::identity({4}, 1);
    // Every coefficient e^{ln 2} = 2: every term doubles, so every time doubles.
    model.layers().back().bias.setConstant(std::log(2.0));
    const LearnedCostModel learned(spec, Weights{model}, "doubling");
    const std::vector<ScheduleFeatures> all = schedules();
    const std::vector<double> a = AnalyticModel(spec).predict(batch_of(all));
    const std::vector<double> l = learned.predict(batch_of(all));
    for (size_t i = 0; i < all.size(); ++i) CHECK(l[i] == doctest::Approx(2 * a[i]).epsilon(1e-12));
    CHECK(learned.coefficients(all[0])[0][index(Term::Dram)] == doctest::Approx(2.0));
}

TEST_CASE("a batch gives the same answers as one schedule at a time") {
    LearnedModel model = LearnedModel::identity({8}, 2);
    model.layers().back().weights.setRandom();
    const LearnedCostModel learned(GpuSpec::default_spec(), Weights{model}, "random");
    const std::vector<ScheduleFeatures> all = schedules();
    const std::vector<double> together = learned.predict(batch_of(all));
    for (size_t i = 0; i < all.size(); ++i) {
        // Single-precision sums over blocks of another size: equal to float precision.
        CHECK(learned.predict({&all[i]})[0] == doctest::Approx(together[i]).epsilon(1e-6));
    }
    CHECK(learned.predict({}).empty());
}

TEST_CASE("describe names the GPU and the weights") {
    const LearnedCostModel learned(GpuSpec::by_name("l40s"), Weights{LearnedModel::identity({4}, 1)}, "w.json");
    CHECK(learned.describe().find("l40s") != std::string::npos);
    CHECK(learned.describe().find("w.json") != std::string::npos);
}

TEST_CASE("weights fit on another GPU are used, with a warning that names both") {
    Weights fitted{LearnedModel::identity({8}, 1)};
    fitted.training["gpus"] = {"h200"};
    const LearnedCostModel same(GpuSpec::by_name("h200"), fitted, "h200.json");
    CHECK(!same.gpu_warning());
    const LearnedCostModel other(GpuSpec::by_name("a100"), fitted, "h200.json");
    REQUIRE(other.gpu_warning());
    CHECK(*other.gpu_warning() == "fit on h200, used for a100: its coefficients correct another GPU's terms");
    const std::vector<ScheduleFeatures> all = schedules();
    CHECK(other.predict(batch_of(all)) == AnalyticModel(GpuSpec::by_name("a100")).predict(batch_of(all)));
}
