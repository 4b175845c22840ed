// The lowered-code check end to end: Strata schedules a pipeline, Halide
// lowers it, and the counts of the lowered Stmt must agree with what the
// Featurizer priced — and a check that is handed wrong prices must say so.
#include "Autoscheduler.h"
#include "BlurPipeline.h"
#include "SchedulingTestSupport.h"
#include "LoweredCheck.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

using namespace strata::autoscheduler;

namespace {

const Halide::Target kCuda = strata::testing::cuda_target();
using strata::testing::temp_path;

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("a Strata schedule's lowered code matches what it priced") {
    strata::testing::BlurPipeline b(1024, 768);
    Halide::Pipeline pipeline(b.by);
    Params params;
    params.beam_size = 4;
    params.passes = 1;
    params.lowered_check = temp_path("strata_lowered_check_blur.json");
    std::remove(params.lowered_check.c_str());
    Halide::AutoSchedulerResults results;
    autoschedule(pipeline, kCuda, params, &results);
    pipeline.compile_to_module({b.in}, "blur", kCuda);
    const nlohmann::json report = read_json(params.lowered_check);
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    CHECK(report["mismatches"].empty());
    CHECK(!report["kernels"].empty());
}

TEST_CASE("wrong prices are mismatches that name the kernel and the count") {
    PricedSchedule priced;
    PricedKernel k;
    k.name = "by.s0";
    k.blocks = 10;
    k.threads_per_block = 256;
    k.points["by"] = 1000;
    k.members["bx"] = "Register";
    priced.kernels.push_back(k);
    LoweredCounts lowered;
    LoweredKernel l;
    l.name = "by.s0";
    l.blocks = 10;
    l.threads_per_block = 256;
    l.points["by"] = 32500;  // strided tiles recompute
    lowered.kernels.push_back(l);
    lowered.outside_kernels.push_back({"bx", "Heap", -1});
    const nlohmann::json report = compare_lowered(priced, lowered);
    CHECK(report["status"] == "fail");
    const std::string text = report["mismatches"].dump();
    CHECK(text.find("kernel by.s0: points of by lowered 32500") != std::string::npos);
    CHECK(text.find("bx is priced in Register but Halide did not allocate it there") != std::string::npos);
    CHECK(text.find("bx is priced per block or thread in kernel by.s0 but Halide allocated it outside") !=
          std::string::npos);
}

TEST_CASE("an imported schedule's whole tiles are priced with the points they recompute") {
    // gpu_tile's default tail on a pure definition is ShiftInwards: the
    // last of each row's three 16-wide tiles shifts back over points the
    // second computed, so a 40×24 image costs 48×32 points (+60%).
    strata::testing::BlurPipeline b(40, 24);
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.bx.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    b.by.gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    Halide::Pipeline pipeline(b.by);
    Params params;
    params.lowered_check = temp_path("strata_lowered_check_shift_inwards.json");
    std::remove(params.lowered_check.c_str());
    const PredictionReport prediction = predict_existing_schedule(pipeline, kCuda, params);
    pipeline.compile_to_module({b.in}, "blur", kCuda);
    const nlohmann::json report = read_json(params.lowered_check);
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    bool found = false;
    for (const auto &kernel : report["kernels"]) {
        if (kernel["name"] != b.by.name() + ".s0") continue;
        found = true;
        CHECK(kernel["points"][b.by.name()]["priced"].get<double>() == 48 * 32);
    }
    CHECK(found);
    CHECK(prediction.predicted_seconds > 0);
}
