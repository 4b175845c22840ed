// The Strata entry point end to end, in-process: schedules must lower for a
// CUDA target, user errors must be clear, and the search must be
// deterministic.
#include "Autoscheduler.h"
#include "BlurPipeline.h"
#include "StagedMatMulPipeline.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/Featurization.h"

#include <doctest/doctest.h>

#include <regex>

using namespace strata::autoscheduler;
using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::Var;

namespace {

const Halide::Target kCuda = strata::testing::cuda_target();
using strata::testing::quick_params;

// Lowering checks everything Halide checks about a schedule.
void lower(const Halide::Pipeline &p, const std::vector<Halide::Argument> &args) {
    Halide::Pipeline copy = p;
    copy.compile_to_module(args, "lowered", kCuda);
}

using Blur = strata::testing::BlurPipeline;

using strata::testing::without_unique_suffixes;

}  // namespace

namespace {
// LoopLevels can be inspected only once locked.
Halide::LoopLevel locked(Halide::LoopLevel level) {
    level.lock();
    return level;
}
}  // namespace

TEST_CASE("a non-GPU target is refused with a clear message") {
    Blur p;
    Halide::Pipeline pipeline(p.by);
    CHECK_THROWS_WITH(autoschedule(pipeline, Halide::Target("host"), quick_params(), nullptr),
                      doctest::Contains("has no GPU feature"));
}

TEST_CASE("a stencil pipeline gets a schedule that lowers, a source and a featurization") {
    Blur p;
    Halide::Pipeline pipeline(p.by);
    Halide::AutoSchedulerResults results;
    AutoscheduleReport report = autoschedule(pipeline, kCuda, quick_params(), &results);
    CHECK(report.gpu == "a100");
    CHECK(report.kernels >= 1);
    CHECK(report.predicted_seconds > 0);
    CHECK(results.schedule_source.find("pipeline.get_func(") != std::string::npos);
    CHECK(results.schedule_source.find("gpu_blocks") != std::string::npos);
    const std::string text(results.featurization.begin(), results.featurization.end());
    const auto f = strata::costmodel::Featurization::from_text(text, "featurization");
    CHECK(!f.stages.empty());
    lower(pipeline, {p.in});
    // The call's time, split into its two large parts.
    CHECK(report.beam_search_seconds > 0);
    CHECK(report.lowering_probe_seconds >= 0);
    CHECK(report.beam_search_seconds + report.lowering_probe_seconds <= report.search_seconds);
    CHECK((report.lowering_probes > 0) == (report.lowering_probe_seconds > 0));
}

TEST_CASE("a Halide error during the search falls back to the default schedule, which lowers") {
    Blur p;
    Halide::Pipeline pipeline(p.by);
    Halide::AutoSchedulerResults results;
    // A real Halide error from Halide's own checks: splitting a Var the Func does not have.
    auto halide_rejects_a_directive = [&] {
        Func by = p.by;
        Var outer("outer"), inner("inner");
        by.split(Var("not_a_dimension_of_by"), outer, inner, 8);
    };
    AutoscheduleReport report;
    InjectedFaults faults;
    faults.after_search = halide_rejects_a_directive;
    REQUIRE_NOTHROW(report = autoschedule(pipeline, kCuda, quick_params(), &results, faults));
    CHECK(report.fell_back);
    CHECK(report.fallback_reason.find("not_a_dimension_of_by") != std::string::npos);
    CHECK(report.kernels >= 1);
    CHECK(results.schedule_source.find("gpu_blocks") != std::string::npos);
    lower(pipeline, {p.in});
}

TEST_CASE("the same pipeline and seed give the same schedule source") {
    std::string first, second;
    for (std::string *out : {&first, &second}) {
        Blur p;
        Halide::Pipeline pipeline(p.by);
        Halide::AutoSchedulerResults results;
        autoschedule(pipeline, kCuda, quick_params(), &results);
        // The cross-process test compares raw bytes (tests/autoscheduler).
        *out = without_unique_suffixes(results.schedule_source);
    }
    CHECK(first == second);
}

TEST_CASE("reductions: a matmul and a full sum to a scalar lower") {
    ImageParam a(Halide::Float(32), 2, "a"), b(Halide::Float(32), 2, "b");
    Func c("c"), total("total");
    Var i("i"), j("j");
    RDom k(0, 512, "k");
    c(i, j) = 0.0f;
    c(i, j) += a(k, j) * b(i, k);
    RDom all(0, 512, 0, 512, "all");
    total() = 0.0f;
    total() += c(all.x, all.y);
    a.set_estimates({{0, 512}, {0, 512}});
    b.set_estimates({{0, 512}, {0, 512}});
    total.set_estimates({});
    Halide::Pipeline pipeline(total);
    autoschedule(pipeline, kCuda, quick_params(), nullptr);
    lower(pipeline, {a, b});
}

TEST_CASE("a histogram (data-dependent update) and several outputs lower") {
    ImageParam in(Halide::UInt(8), 2, "in");
    Func hist("hist"), scaled("scaled");
    Var v("v"), x("x"), y("y");
    RDom r(0, 256, 0, 256, "r");
    hist(v) = 0;
    hist(Halide::cast<int>(in(r.x, r.y))) += 1;
    scaled(x, y) = Halide::cast<float>(in(x, y)) * 0.5f;
    in.set_estimates({{0, 256}, {0, 256}});
    hist.set_estimates({{0, 256}});
    scaled.set_estimates({{0, 256}, {0, 256}});
    Halide::Pipeline pipeline({hist, scaled});
    autoschedule(pipeline, kCuda, quick_params(), nullptr);
    lower(pipeline, {in});
}

TEST_CASE("a missing output estimate names the Func and dimension") {
    ImageParam in(Halide::Float(32), 2, "in");
    Func f("needs_estimate");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * 2;
    in.set_estimates({{0, 64}, {0, 64}});
    f.set_estimate(x, 0, 64);
    Halide::Pipeline pipeline(f);
    CHECK_THROWS_WITH(autoschedule(pipeline, kCuda, quick_params(), nullptr),
                      doctest::Contains(("'" + f.name() + "' has no estimate for dimension 1 (y)").c_str()));
}

TEST_CASE("the GPU comes from the params, then the target's CUDA capability, then the default") {
    Params p;
    CHECK(select_gpu_spec(p, kCuda).name == "a100");
    CHECK(select_gpu_spec(p, Halide::Target("host-cuda-cuda_capability_70")).name == "v100");
    CHECK(select_gpu_spec(p, Halide::Target("host-opencl")).name == "a100");
    p.gpu = "h200";
    CHECK(select_gpu_spec(p, kCuda).name == "h200");
    p.gpu = "no-such-gpu";
    CHECK_THROWS_WITH(select_gpu_spec(p, kCuda), doctest::Contains("no-such-gpu"));
}

TEST_CASE("an extern stage is an opaque root stage between GPU kernels, and the pipeline lowers") {
    ImageParam in(Halide::Float(32), 1, "in");
    Func pre("pre"), ext("ext"), post("post");
    Var x("x");
    pre(x) = in(x) + 1;
    ext.define_extern("strata_test_extern", {pre}, Halide::Float(32), 1);
    post(x) = ext(x) * 2;
    in.set_estimates({{0, 4096}});
    post.set_estimates({{0, 4096}});
    Halide::Pipeline pipeline(post);
    Halide::AutoSchedulerResults results;
    autoschedule(pipeline, kCuda, quick_params(), &results);
    CHECK(locked(ext.function().schedule().compute_level()).is_root());
    CHECK(locked(pre.function().schedule().compute_level()).is_root());
    lower(pipeline, {in});
}

// A chain of stencils after a product: its narrower beams find answers of
// their own, so the search has several finalists. Built anew for each call,
// so that every call searches the same Funcs from scratch.
struct FinalistsPipeline {
    strata::testing::StagedMatMul m{256};
    Func out;
    FinalistsPipeline() {
        Var x("x"), y("y");
        Func previous = m.out;
        for (int i = 0; i < 6; ++i) {
            Func f("chain" + std::to_string(i));
            f(x, y) = previous(x, y) + previous(x + 1, y) * 0.5f + previous(x, y + 1) * 0.25f;
            previous = f;
        }
        out = previous;
        out.set_estimates({{0, 200}, {0, 200}});
    }
};

TEST_CASE("the first finalist Halide accepts as written ends the lowering probes") {
    FinalistsPipeline p;
    Halide::Pipeline pipeline(p.out);
    const AutoscheduleReport report = autoschedule(pipeline, kCuda, Params{}, nullptr);
    lower(pipeline, {p.m.a, p.m.b});
    REQUIRE(report.finalists > 1);
    CHECK(report.finalists_tried == 1);
    CHECK(report.lowering_probes <= 1);
}

// Schedules a fresh FinalistsPipeline with these faults and budget, and
// checks that the pipeline lowers.
AutoscheduleReport schedule_finalists(const InjectedFaults &faults, int budget_ms = 0) {
    FinalistsPipeline p;
    Halide::Pipeline pipeline(p.out);
    Params params;
    params.finalist_probe_ms = budget_ms;
    const AutoscheduleReport report = autoschedule(pipeline, kCuda, params, nullptr, faults);
    lower(pipeline, {p.m.a, p.m.b});
    return report;
}

TEST_CASE("a dearer finalist is not lowered when, without the members Halide rejected, it cannot win") {
    // A stricter Halide that rejects every Func computed inside another's
    // kernel: the cheapest finalist loses its members (one probe to find
    // them; with none left, nothing to lower again). The dearer ones,
    // priced with the same members out of the same kernels, cost no less:
    // no probe for them.
    InjectedFaults faults;
    int rejections = 0;
    faults.rejection = [&](const std::set<std::string> &members) -> std::optional<std::string> {
        if (members.empty()) return std::nullopt;
        ++rejections;
        std::string message = "a test rejects";
        for (const std::string &name : members) message += " " + name;
        return message;
    };
    const AutoscheduleReport report = schedule_finalists(faults);
    REQUIRE(report.finalists > 1);
    CHECK(rejections == 1);
    CHECK(report.finalists_tried == 1);
    CHECK(report.lowering_probes == 1);
    CHECK_FALSE(report.fell_back);
}

TEST_CASE("after a finalist Halide rejects outright, dearer ones are lowered until the probes' budget") {
    // The first probe fails in a way no repair names: that finalist is
    // dropped and the next one tried, unless the first probe already spent
    // the budget; with every tried finalist dropped, the pipeline gets the
    // default schedule.
    auto first_probe_fails = [] {
        InjectedFaults faults;
        auto probes = std::make_shared<int>(0);
        faults.rejection = [probes](const std::set<std::string> &) -> std::optional<std::string> {
            if ((*probes)++ == 0) return std::string("a test rejects this schedule outright");
            return std::nullopt;
        };
        return faults;
    };
    const AutoscheduleReport all = schedule_finalists(first_probe_fails());
    REQUIRE(all.finalists > 1);
    CHECK(all.finalists_tried == 2);
    CHECK_FALSE(all.fell_back);
    const AutoscheduleReport within_budget = schedule_finalists(first_probe_fails(), 1);
    CHECK(within_budget.finalists_tried == 1);
    CHECK(within_budget.fell_back);
}
