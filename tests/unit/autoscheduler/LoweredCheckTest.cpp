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
