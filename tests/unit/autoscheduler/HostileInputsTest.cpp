// Regression tests for the inputs that broke Strata in the hostile-input
// review (issue 14): each case failed before its fix. Every pipeline is
// scheduled in-process, then lowered for CUDA with the lowered-code check,
// whose report says what Halide really built (grids, threads, where each
// Func is computed and stored).
#include "Autoscheduler.h"
#include "BlurPipeline.h"
#include "SchedulingTestSupport.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>

using namespace strata::autoscheduler;
using Halide::Func;
using Halide::ImageParam;
using Halide::RDom;
using Halide::Var;

namespace {

const Halide::Target kCuda = strata::testing::cuda_target();
using strata::testing::quick_params;
using strata::testing::temp_path;

// Schedules, lowers for `target`, and returns the lowered-code report.
nlohmann::json schedule_and_lower(Halide::Pipeline pipeline, const std::vector<Halide::Argument> &args,
                                  Params params = quick_params(), const Halide::Target &target = kCuda) {
    params.lowered_check = temp_path("strata_hostile_" + std::to_string(std::rand()) + ".json");
    Halide::AutoSchedulerResults results;
    autoschedule(pipeline, target, params, &results);
    pipeline.compile_to_module(args, "hostile", target);
    std::ifstream in(params.lowered_check);
    REQUIRE(in.good());
    nlohmann::json report = nlohmann::json::parse(in);
    std::remove(params.lowered_check.c_str());
    return report;
}

// Every kernel's grid and block within the CUDA limits of compute capability ≥ 3.0.
void check_launchable(const nlohmann::json &report, int max_threads = 1024) {
    for (const auto &k : report["kernels"]) {
        if (!k.contains("grid")) continue;
        INFO("kernel " << k["name"]);
        CHECK(k["grid"][0].get<double>() <= 2147483647.0);
        CHECK(k["grid"][1].get<double>() <= 65535);
        CHECK(k["grid"][2].get<double>() <= 65535);
        CHECK(k["threads_per_block"]["lowered"].get<double>() <= max_threads);
    }
}

// Funcs reachable from the outputs (rfactor intermediates included).
size_t func_count(const Halide::Pipeline &p) {
    std::map<std::string, Halide::Internal::Function> env;
    for (const Func &f : p.outputs()) {
        for (const auto &[name, fn] : Halide::Internal::find_transitive_calls(f.function())) env[name] = fn;
    }
    return env.size();
}

// A sum over a large 1-D input into 16 bins: short pure parallelism, so Strata factors it.
struct ShortReduction {
    ImageParam in{Halide::Float(32), 1, "in"};
    Func sums{"sums"}, out{"out"};
    Var x{"x"};
    RDom r{0, 1 << 20, "r"};
    ShortReduction() {
        sums(x) = 0.0f;
        sums(x) += in(r + x * (1 << 20));
        out(x) = sums(x) * 2;
        in.set_estimates({{0, 16 << 20}});
        out.set_estimates({{0, 16}});
    }
};

}  // namespace

TEST_CASE("1. every CUDA capability Halide names schedules (nearest older GPU, with a warning)") {
    const std::pair<int, const char *> cases[] = {{30, "v100"}, {50, "v100"}, {61, "v100"}, {75, "v100"},
                                                  {86, "a100"}};
    for (const auto &[capability, gpu] : cases) {
        strata::testing::BlurPipeline b(512, 512);
        Halide::Pipeline p(b.by);
        const Halide::Target target("host-cuda-cuda_capability_" + std::to_string(capability));
        AutoscheduleReport report;
        REQUIRE_NOTHROW(report = autoschedule(p, target, quick_params(), nullptr));
        CHECK(report.gpu == gpu);
        CHECK_NOTHROW(p.compile_to_module({b.in}, "capability", target));
    }
}

TEST_CASE("2. grids stay within CUDA's limits: a very tall image and a conv with many channels") {
    {
        ImageParam in(Halide::Float(32), 2, "in");
        Func clamped = Halide::BoundaryConditions::repeat_edge(in);
        Func blur("tall_blur");
        Var x("x"), y("y");
        blur(x, y) = clamped(x, y - 1) + clamped(x, y) + clamped(x, y + 1);
        in.set_estimates({{0, 64}, {0, 8000000}});
        blur.set_estimates({{0, 64}, {0, 8000000}});
        check_launchable(schedule_and_lower(Halide::Pipeline(blur), {in}));
    }
    {
        ImageParam in(Halide::Float(32), 4, "in"), w(Halide::Float(32), 4, "w");
        Func conv("wide_conv");
        Var x("x"), y("y"), c("c"), n("n");
        RDom r(0, 64, "r");
        conv(x, y, c, n) = 0.0f;
        conv(x, y, c, n) += in(x, y, r, n) * w(c, r, 0, 0);
        in.set_estimates({{0, 7}, {0, 7}, {0, 64}, {0, 256}});
        w.set_estimates({{0, 2048}, {0, 64}, {0, 1}, {0, 1}});
        conv.set_estimates({{0, 7}, {0, 7}, {0, 2048}, {0, 256}});
        check_launchable(schedule_and_lower(Halide::Pipeline(conv), {in, w}));
    }
}

TEST_CASE("3 and 13. a failed call leaves the user's Funcs as they were; a second call factors only once") {
    ShortReduction fresh;
    Halide::Pipeline fresh_pipeline(fresh.out);
    const size_t before = func_count(fresh_pipeline);
    autoschedule(fresh_pipeline, kCuda, quick_params(), nullptr);
    const size_t factored = func_count(fresh_pipeline);
    REQUIRE(factored > before);  // the reduction was factored

    ShortReduction s;
    Halide::Pipeline p(s.out);
    Params bad = quick_params();
    bad.weights = "/nonexistent/strata-weights.json";
    CHECK_THROWS_WITH(autoschedule(p, kCuda, bad, nullptr), doctest::Contains("strata-weights.json"));
    CHECK(func_count(p) == before);
    // A failure inside the search, after factoring: the fallback starts from the user's pipeline.
    const AutoscheduleReport fell = autoschedule(p, kCuda, quick_params(), nullptr, InjectedFaults{[] {
        Func f;
        f.split(Var("no_such_var"), Var("a"), Var("b"), 2);
    }});
    CHECK(fell.fell_back);
    CHECK(func_count(p) == before);
    autoschedule(p, kCuda, quick_params(), nullptr);
    CHECK(func_count(p) == factored);
}

TEST_CASE("4 and 10. a specialized Func runs every branch on the GPU, and is never inlined") {
    ImageParam in(Halide::Float(32), 2, "in");
    Halide::Param<int> mode("mode");
    mode.set_estimate(1);
    Func special("special"), out("out");
    Var x("x"), y("y");
    special(x, y) = in(x, y) * 2;
    special.specialize(mode > 0);
    out(x, y) = special(x, y) + 1;
    in.set_estimates({{0, 1024}, {0, 1024}});
    out.set_estimates({{0, 1024}, {0, 1024}});
    const nlohmann::json report = schedule_and_lower(Halide::Pipeline(out), {in, mode});
    INFO(report.dump(1));
    CHECK(report["host_points"].empty());
    // Computed in some kernel (its own or as a member), never inlined away.
    bool special_on_gpu = false;
    for (const auto &k : report["kernels"]) {
        for (const auto &[func, count] : k["points"].items()) special_on_gpu |= func.rfind("special", 0) == 0;
    }
    CHECK(special_on_gpu);
}

TEST_CASE("5. a schedule the user wrote is kept, and Strata schedules around it") {
    strata::testing::BlurPipeline b(1024, 1024);
    Func bx = b.bx;
    bx.compute_root();
    Halide::Pipeline p(b.by);
    const nlohmann::json report = schedule_and_lower(p, {b.in});
    Halide::LoopLevel level = bx.function().schedule().compute_level();
    level.lock();
    CHECK(level.is_root());

    strata::testing::BlurPipeline tiled(1024, 1024);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func by = tiled.by;
    by.gpu_tile(tiled.x, tiled.y, xo, yo, xi, yi, 16, 16);
    Func split_x = tiled.bx;
    Var xs("xs"), xt("xt");
    split_x.compute_root().split(tiled.x, xs, xt, 32).gpu_blocks(xs).gpu_threads(xt);
    Halide::Pipeline user(tiled.by);
    nlohmann::json kept;
    REQUIRE_NOTHROW(kept = schedule_and_lower(user, {tiled.in}));
    bool user_tile = false;
    for (const auto &k : kept["kernels"]) {
        if (k["name"].get<std::string>().rfind("by", 0) == 0) user_tile |= k["threads_per_block"]["lowered"] == 256;
    }
    CHECK(user_tile);
}

TEST_CASE("6. max_threads_per_block bounds every kernel: searched, default and factored") {
    Params p = quick_params();
    p.max_threads_per_block = 64;
    strata::testing::BlurPipeline b(1024, 1024);
    check_launchable(schedule_and_lower(Halide::Pipeline(b.by), {b.in}, p), 64);
    ShortReduction s;
    check_launchable(schedule_and_lower(Halide::Pipeline(s.out), {s.in}, p), 64);
    // The fallback's default schedule too.
    strata::testing::BlurPipeline f(1024, 1024);
    Halide::Pipeline fp(f.by);
    p.lowered_check = temp_path("strata_hostile_fallback.json");
    const AutoscheduleReport r = autoschedule(fp, kCuda, p, nullptr, InjectedFaults{[] { Func().split(Var("v"), Var("a"), Var("b"), 2); }});
    CHECK(r.fell_back);
    fp.compile_to_module({f.in}, "fallback", kCuda);
    std::ifstream in(p.lowered_check);
    check_launchable(nlohmann::json::parse(in), 64);
}

TEST_CASE("7. a Func read by an extern stage covers what the extern stage produces") {
    ImageParam in(Halide::Float(32), 1, "in");
    Func pre("pre"), ext("ext"), post("post");
    Var x("x");
    pre(x) = in(x) + 1;
    ext.define_extern("strata_test_extern", {pre}, Halide::Float(32), 1);
    post(x) = ext(x) * 2;
    in.set_estimates({{0, 1 << 20}});
    post.set_estimates({{0, 1 << 20}});
    const nlohmann::json report = schedule_and_lower(Halide::Pipeline(post), {in});
    for (const auto &k : report["kernels"]) {
        if (k["name"].get<std::string>().rfind("pre", 0) != 0) continue;
        CHECK(k["blocks"]["priced"].get<double>() > 1);
        CHECK(k["threads_per_block"]["priced"].get<double>() > 1);
    }
}

TEST_CASE("8. zero or negative output estimates are errors naming the Func and dimension") {
    for (int extent : {0, -5}) {
        ImageParam in(Halide::Float(32), 2, "in");
        Func out("bad_estimate");
        Var x("x"), y("y");
        out(x, y) = in(x, y);
        in.set_estimates({{0, 64}, {0, 64}});
        out.set_estimates({{0, 64}, {0, extent}});
        Halide::Pipeline p(out);
        const std::string expected =
            "has an estimated extent of " + std::to_string(extent) + " in dimension 1 (y)";
        CHECK_THROWS_WITH(autoschedule(p, kCuda, quick_params(), nullptr), doctest::Contains(expected.c_str()));
    }
}

TEST_CASE("11. device memory is budgeted: no per-thread Func lifted to global memory, buffers within the GPU") {
    // The tall blur's boundary Func per thread would have been a 106 GB global buffer.
    ImageParam in(Halide::Float(32), 2, "in");
    Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    Func bx("tall_bx"), by("tall_by");
    Var x("x"), y("y");
    bx(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
    by(x, y) = bx(x, y - 1) + bx(x, y) + bx(x, y + 1);
    in.set_estimates({{0, 64}, {0, 8000000}});
    by.set_estimates({{0, 64}, {0, 8000000}});
    const nlohmann::json report = schedule_and_lower(Halide::Pipeline(by), {in});
    for (const auto &a : report["allocations_outside_kernels"]) {
        CHECK(a["memory"] != "Heap");
    }
    INFO(report["mismatches"].dump(1));
    CHECK(report["status"] == "pass");

    // With room for only two of the chain's four 64 MB buffers, the search inlines.
    const std::string spec = temp_path("strata_small_gpu.json");
    std::ofstream(spec) << R"({"base": "a100", "name": "small", "device_memory_bytes": 150000000})";
    ImageParam img(Halide::Float(32), 2, "img");
    Func a("chain_a"), b("chain_b"), out("chain_out");
    a(x, y) = img(x, y) * 2;
    b(x, y) = a(x, y) + 1;
    out(x, y) = b(x, y) * b(x, y);
    img.set_estimates({{0, 4096}, {0, 4096}});
    out.set_estimates({{0, 4096}, {0, 4096}});
    Params p = quick_params();
    p.gpu_spec_file = spec;
    Halide::Pipeline chain(out);
    const AutoscheduleReport r = autoschedule(chain, kCuda, p, nullptr);
    CHECK(r.kernels == 1);
    std::remove(spec.c_str());
}

TEST_CASE("12. a tuple-valued reduction (argmax) is parallelized like a scalar one") {
    // Written the way Halide can prove associative (value first, the old
    // index kept unless the new value wins), which is what rfactor needs.
    ImageParam in(Halide::Float(32), 2, "in");
    Func best("argmax"), out("best_index");
    Var x("x");
    RDom r(0, 700, 0, 300, "r");
    best() = Halide::Tuple(in(0, 0), 0, 0);
    const Halide::Expr keep = best()[0] > in(r.x, r.y);
    best() = Halide::Tuple(Halide::max(best()[0], in(r.x, r.y)), Halide::select(keep, best()[1], r.x),
                           Halide::select(keep, best()[2], r.y));
    out(x) = Halide::select(x == 0, best()[1], best()[2]);
    in.set_estimates({{0, 700}, {0, 300}});
    out.set_estimates({{0, 2}});
    const nlohmann::json report = schedule_and_lower(Halide::Pipeline(out), {in});
    INFO(report.dump(1));
    double most_threads = 0;
    for (const auto &k : report["kernels"]) {
        most_threads = std::max(most_threads, k["blocks"]["lowered"].get<double>() *
                                                  k["threads_per_block"]["lowered"].get<double>());
    }
    CHECK(most_threads >= 256);
}
