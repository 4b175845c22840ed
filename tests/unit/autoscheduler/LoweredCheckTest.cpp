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
#include <tuple>
#include <vector>

using namespace strata::autoscheduler;

namespace {

const Halide::Target kCuda = strata::testing::cuda_target();
using strata::testing::temp_path;

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

// The lowered-code check's report on the schedule `pipeline` carries now.
nlohmann::json imported_schedule_report(Halide::Pipeline pipeline, const std::vector<Halide::Argument> &inputs,
                                        const std::string &name, double *predicted_seconds = nullptr) {
    Params params;
    params.lowered_check = temp_path("strata_lowered_check_" + name + ".json");
    std::remove(params.lowered_check.c_str());
    const PredictionReport prediction = predict_existing_schedule(pipeline, kCuda, params);
    if (predicted_seconds) *predicted_seconds = prediction.predicted_seconds;
    pipeline.compile_to_module(inputs, name, kCuda);
    return read_json(params.lowered_check);
}

nlohmann::json imported_schedule_report(Halide::Pipeline pipeline, const Halide::ImageParam &in,
                                        const std::string &name, double *predicted_seconds = nullptr) {
    return imported_schedule_report(std::move(pipeline), std::vector<Halide::Argument>{in}, name, predicted_seconds);
}

// The report's entry for kernel `name`, or null.
nlohmann::json kernel_report(const nlohmann::json &report, const std::string &name) {
    for (const auto &kernel : report["kernels"]) {
        if (kernel["name"] == name) return kernel;
    }
    return nullptr;
}

// The report's entry for kernel `name`, once the report is checked to pass.
nlohmann::json passing_kernel(const nlohmann::json &report, const std::string &name) {
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    nlohmann::json kernel = kernel_report(report, name);
    REQUIRE(!kernel.is_null());
    return kernel;
}

// `out` at root over blocks of 32 x 8 threads (loops xo, yo, xi, yi), a point each.
void root_in_32x8_blocks(Halide::Func out, const Halide::Var &x, const Halide::Var &y) {
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    out.compute_root()
        .split(x, xo, xi, 32)
        .split(y, yo, yi, 8)
        .reorder(xi, yi, xo, yo)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, yi);
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

namespace {

// A kernel's priced or lowered counts, with its launch set.
template <typename Kernel>
Kernel launch(const std::string &name, double blocks, double threads_per_block) {
    Kernel k;
    k.name = name;
    k.blocks = blocks;
    k.threads_per_block = threads_per_block;
    return k;
}

}  // namespace

TEST_CASE("wrong prices are mismatches that name the kernel and the count") {
    PricedSchedule priced;
    PricedKernel k = launch<PricedKernel>("by.s0", 10, 256);
    k.points["by"] = 1000;
    k.members["bx"] = "Register";
    priced.kernels.push_back(k);
    LoweredCounts lowered;
    LoweredKernel l = launch<LoweredKernel>("by.s0", 10, 256);
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

TEST_CASE("byte counts are held to a factor from one sector up") {
    // A one-thread kernel storing its result 5 times (once per loop Halide
    // partitioned its reduction into) moves one 32-byte sector, as priced;
    // 64 bytes against 200 are more than 2x apart.
    for (const auto &[stored, priced_bytes, fails] :
         std::vector<std::tuple<double, double, bool>>{{20, 4, false}, {4, 20, false}, {200, 64, true}}) {
        INFO(stored << " stored, " << priced_bytes << " priced");
        PricedSchedule priced;
        priced.kernels.push_back(launch<PricedKernel>("r.s1", 1, 1));
        priced.kernels.back().global_store_bytes = priced_bytes;
        LoweredCounts lowered;
        lowered.kernels.push_back(launch<LoweredKernel>("r.s1", 1, 1));
        lowered.kernels.back().global_store_bytes = stored;
        CHECK((compare_lowered(priced, lowered)["status"] == "fail") == fails);
    }
}

TEST_CASE("an imported schedule's whole tiles are priced with the points they recompute") {
    // gpu_tile's default tail on a pure definition is ShiftInwards: the
    // last of each row's three 16-wide tiles shifts back over points the
    // second computed, so a 40×24 image costs 48×32 points (+60%).
    strata::testing::BlurPipeline b(40, 24);
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.bx.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    b.by.gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    double predicted_seconds = 0;
    const nlohmann::json report = imported_schedule_report(b.by, b.in, "shift_inwards", &predicted_seconds);
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    const nlohmann::json kernel = kernel_report(report, b.by.name() + ".s0");
    REQUIRE(!kernel.is_null());
    CHECK(kernel["points"][b.by.name()]["priced"].get<double>() == 48 * 32);
    CHECK(predicted_seconds > 0);
}

TEST_CASE("an imported wrapper made with in() is priced with the points Halide computes for it") {
    // As Anderson2021 stages an operand: each thread owns a compact 1×4
    // column of by and copies the 1×6 rows of bx it reads into registers.
    strata::testing::BlurPipeline b(256, 256);
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), yii("yii");
    b.by.compute_root()
        .split(b.y, yo, yi, 16, Halide::TailStrategy::ShiftInwards)
        .split(yi, yi, yii, 4, Halide::TailStrategy::ShiftInwards)
        .split(b.x, xo, xi, 32, Halide::TailStrategy::ShiftInwards)
        .reorder(yii, xi, yi, xo, yo)
        .unroll(yii)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, yi);
    b.bx.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    Halide::Func staged = b.bx.in(b.by);
    staged.compute_at(b.by, xi).store_in(Halide::MemoryType::Register).unroll(b.x).unroll(b.y);
    const nlohmann::json report = imported_schedule_report(b.by, b.in, "wrapper");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    const nlohmann::json kernel = kernel_report(report, b.by.name() + ".s0");
    REQUIRE(!kernel.is_null());
    bool found = false;
    for (const auto &[func, counts] : kernel["points"].items()) {
        if (func.rfind(staged.name(), 0) != 0) continue;
        found = true;
        CHECK(counts["priced"].get<double>() == 256.0 * 256 / 4 * 6);
    }
    CHECK(found);
}

TEST_CASE("members Halide places without a memory type are found where the model priced them") {
    // As Mullapudi2016 schedules a kernel: per-block stages (on one thread
    // of the block) and a per-thread stage, none given a memory type.
    // Halide puts Auto allocations of a block in shared memory and lets
    // stages whose lifetimes do not overlap share one space (b2 reuses
    // b0's, "b0.0_b2.2"); an Auto allocation left inside the thread loops
    // is a per-thread array, as Register is.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func b0("b0"), b1("b1"), b2("b2"), t("t"), out("out");
    Halide::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    b0(x, y) = clamped(x, y) * 2.0f;
    b1(x, y) = b0(x, y) + b0(x + 1, y);
    b2(x, y) = b1(x, y) + b1(x, y + 1);
    t(x, y) = b2(x, y) * b2(x + 1, y);
    out(x, y) = t(x, y) + t(x, y + 1);
    in.set_estimates({{0, 256}, {0, 256}});
    out.set_estimates({{0, 256}, {0, 256}});
    out.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, Halide::TailStrategy::RoundUp);
    for (Halide::Func f : {b0, b1, b2}) f.compute_at(out, xo);
    t.compute_at(out, xi);
    const nlohmann::json report = imported_schedule_report(Halide::Pipeline(out), in, "auto_members");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    std::map<std::string, std::string> memory;
    for (const auto &kernel : report["kernels"]) {
        for (const auto &a : kernel["allocations"]) memory[a["func"]] = a["memory"];
    }
    CHECK(memory[b0.name()] == "GPUShared");
    CHECK(memory[b1.name()] == "GPUShared");
    CHECK(memory[b2.name()] == "GPUShared");
    CHECK(memory[t.name()] == "Auto");
}

TEST_CASE("a block member with no thread loops of its own is priced on the one thread Halide runs it on") {
    // Mullapudi2016's members: compute_at a block loop, no gpu_threads.
    // Halide runs such a stage under "thread_id_x < 1" while the block's
    // other threads wait; priced on all of them, its schedules came out
    // 100-200x faster than an H200 ran them.
    strata::testing::BlurPipeline b(512, 512);
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.by.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 32, 8, Halide::TailStrategy::RoundUp);
    b.bx.compute_at(b.by, xo);
    double one_thread_seconds = 0;
    const nlohmann::json report = imported_schedule_report(b.by, b.in, "one_thread_member", &one_thread_seconds);
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    bool found = false;
    for (const auto &kernel : report["kernels"]) {
        if (!kernel["threads"].contains(b.bx.name())) continue;
        found = true;
        CHECK(kernel["threads"][b.bx.name()]["lowered"].get<double>() == 1);
        CHECK(kernel["threads"][b.bx.name()]["priced"].get<double>() == 1);
    }
    CHECK(found);
    // The same member spread over the block's threads is priced far cheaper.
    Halide::Var bxo("bxo"), byo("byo"), bxi("bxi"), byi("byi");
    b.bx.split(b.x, bxo, bxi, 32, Halide::TailStrategy::GuardWithIf)
        .split(b.y, byo, byi, 8, Halide::TailStrategy::GuardWithIf)
        .reorder(bxi, byi, bxo, byo)
        .gpu_threads(bxi, byi);
    double spread_seconds = 0;
    const nlohmann::json spread = imported_schedule_report(b.by, b.in, "spread_member", &spread_seconds);
    INFO(spread.dump(1));
    CHECK(spread["status"] == "pass");
    CHECK(one_thread_seconds > 20 * spread_seconds);
}

TEST_CASE("a serial loop between the block and thread loops runs several tiles in each block") {
    // As Mullapudi2016 leaves a colour channel: each block runs the three
    // channels of its 32x8 tile in turn, recomputing its member per channel.
    Halide::ImageParam in(Halide::Float(32), 3, "in");
    Halide::Func blur("blur"), out("out");
    Halide::Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    blur(x, y, c) = clamped(x - 1, y, c) + clamped(x + 1, y, c);
    out(x, y, c) = blur(x, y - 1, c) + blur(x, y + 1, c);
    in.set_estimates({{0, 256}, {0, 256}, {0, 3}});
    out.set_estimates({{0, 256}, {0, 256}, {0, 3}});
    out.compute_root()
        .split(x, xo, xi, 32)
        .split(y, yo, yi, 8)
        .reorder(xi, yi, c, xo, yo)
        .gpu_threads(xi, yi)
        .gpu_blocks(xo, yo);
    blur.compute_at(out, c);
    const nlohmann::json report = imported_schedule_report(Halide::Pipeline(out), in, "tiles_per_block");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    for (const auto &kernel : report["kernels"]) {
        CHECK(kernel["blocks"]["lowered"].get<double>() == 8 * 32);
        CHECK(kernel["blocks"]["priced"].get<double>() == 8 * 32);
    }
}

TEST_CASE("a whole dimension left serial outside the block loops launches the kernel once per point") {
    // As Mullapudi2016 schedules nl_means's 4-D diff and attention's
    // output: three dimensions tiled onto the grid, the fourth (5 long)
    // looped by the host around the kernel. Halide launches 5 grids of
    // 8 x 32 x 3 blocks; the blocks count all of them.
    Halide::ImageParam in(Halide::Float(32), 4, "in");
    Halide::Func out("out");
    Halide::Var x("x"), y("y"), c("c"), n("n"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    out(x, y, c, n) = in(x, y, c, n) * 2;
    in.set_estimates({{0, 256}, {0, 256}, {0, 3}, {0, 5}});
    out.set_estimates({{0, 256}, {0, 256}, {0, 3}, {0, 5}});
    out.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8).gpu_blocks(c);
    const nlohmann::json report = imported_schedule_report(Halide::Pipeline(out), in, "host_loop");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    REQUIRE(report["kernels"].size() == 1);
    const nlohmann::json kernel = report["kernels"][0];
    CHECK(kernel["launches"]["lowered"].get<double>() == 5);
    CHECK(kernel["launches"]["priced"].get<double>() == 5);
    CHECK(kernel["blocks"]["lowered"].get<double>() == 5 * 8 * 32 * 3);
    CHECK(kernel["blocks"]["priced"].get<double>() == 5 * 8 * 32 * 3);
}

TEST_CASE("a reduction run over blocks with atomic adds launches a block per reduction tile") {
    // As Li2018 schedules hist: the rows of the image, split by 8, are
    // spread over 8 blocks along y of the grid, each adding its rows'
    // columns to the sums atomically. 2 x 8 blocks of 64 threads, each
    // thread 8 rows.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func sums("sums");
    Halide::Var x("x"), xo("xo"), xi("xi");
    Halide::RDom r(0, 64, "r");
    Halide::RVar ro("ro"), ri("ri");
    sums(x) = 0.0f;
    sums(x) += in(x, r);
    in.set_estimates({{0, 128}, {0, 64}});
    sums.set_estimates({{0, 128}});
    sums.compute_root().gpu_tile(x, xo, xi, 64);
    sums.update().atomic().split(r, ro, ri, 8).reorder(ri, x, ro).split(x, xo, xi, 64).reorder(ri, xi, xo, ro)
        .gpu_threads(xi).gpu_blocks(xo, ro);
    const nlohmann::json report = imported_schedule_report(Halide::Pipeline(sums), in, "reduction_blocks");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    bool found = false;
    for (const auto &kernel : report["kernels"]) {
        if (kernel["name"].get<std::string>().find(".s1") == std::string::npos) continue;
        found = true;
        CHECK(kernel["blocks"]["lowered"].get<double>() == 2 * 8);
        CHECK(kernel["blocks"]["priced"].get<double>() == 2 * 8);
    }
    CHECK(found);
}

TEST_CASE("an imported member computed between two thread loops is priced on every thread, in global memory") {
    // As Mullapudi2016 places its members: bx at by's outer thread loop yi,
    // with the thread loop xi inside it. Halide lifts xi out of bx's
    // computation, so every thread computes bx for all 32 points of its
    // xi row (3 rows of 32, 96 points per thread, 32x the 3 it needs),
    // into a heap buffer sized by xi's guarded bounds.
    strata::testing::BlurPipeline b(256, 64);
    Halide::Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.by.compute_root()
        .split(b.x, xo, xi, 32, Halide::TailStrategy::GuardWithIf)
        .split(b.y, yo, yi, 8, Halide::TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, yi);
    b.bx.compute_at(b.by, yi);
    const nlohmann::json report = imported_schedule_report(b.by, b.in, "between_threads");
    INFO(report.dump(1));
    CHECK(report["status"] == "pass");
    const nlohmann::json kernel = kernel_report(report, b.by.name() + ".s0");
    REQUIRE(!kernel.is_null());
    CHECK(kernel["points"][b.bx.name()]["priced"].get<double>() == doctest::Approx(256.0 * 64 * 96));
    // bx's stores go to global memory beside by's.
    CHECK(kernel["global_store_bytes"]["priced"].get<double>() == doctest::Approx(256.0 * 64 * (96 + 1) * 4));
}

TEST_CASE("an imported member computed inside a thread's serial loop is priced anew at each of its points") {
    // out's thread runs x serially; f is computed at x (as Mullapudi2016
    // places interpolate's levels), so each x computes f over what that
    // one x reads: 3 points for a 3-tap stencil (3x out's points, where a
    // per-thread member would cover its row once, 1x and a halo), and 1
    // or 2 points for f(x / 2) + f((x + 1) / 2) by x's parity (1.5x on
    // average; a size Halide cannot prove constant, so a heap buffer).
    for (bool halved : {false, true}) {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func f("f"), out("out");
        Halide::Var x("x"), y("y"), yo("yo"), yi("yi");
        f(x, y) = in(x, y) * 2;
        out(x, y) = halved ? f(x / 2, y) + f((x + 1) / 2, y) : f(x - 1, y) + f(x, y) + f(x + 1, y);
        in.set_estimates({{-1, 258}, {0, 64}});
        out.set_estimates({{0, 256}, {0, 64}});
        out.compute_root().split(y, yo, yi, 8).reorder(x, yi, yo).gpu_blocks(yo).gpu_threads(yi);
        f.compute_at(out, x);
        const nlohmann::json report = imported_schedule_report(out, in, halved ? "per_x_halved" : "per_x_stencil");
        INFO("halved: " << halved);
        const nlohmann::json kernel = passing_kernel(report, out.name() + ".s0");
        const double points = kernel["points"][f.name()]["priced"].get<double>();
        CHECK(points == doctest::Approx(256.0 * 64 * (halved ? 1.5 : 3.0)).epsilon(0.02));
        // Halved, f's computations change size with x: on the heap, its stores in global memory.
        const double stored = kernel["global_store_bytes"]["priced"].get<double>();
        CHECK(stored == doctest::Approx(256.0 * 64 * 4 + (halved ? points * 4 : 0.0)).epsilon(0.02));
    }
}

TEST_CASE("an imported member computed at a thread loop of a per-block member is priced per thread of that member") {
    // As Anderson2021 computes harris's wrapper of gray per thread of ix:
    // g, per block with 32 x 2 thread loops of its own over its 32 x 10
    // tile (5 rows a thread), computes f at its thread loop: per g thread,
    // f covers what 1 x 5 points of g read, 1 x 7. 64 blocks of 64 such
    // threads: 28,672 points (priced as a member of out's threads, it was
    // out's per-thread footprint on out's 256 threads: 2 rows of g, 4 of f).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func f("f"), g("g"), out("out");
    Halide::Var x("x"), y("y"), xo("xo"), gyi("gyi"), gxs("gxs"), gys("gys");  // xo: root_in_32x8_blocks's
    f(x, y) = in(x, y) * 2;
    g(x, y) = f(x, y - 1) + f(x, y + 1);
    out(x, y) = g(x, y - 1) + g(x, y) + g(x, y + 1);
    in.set_estimates({{0, 256}, {-2, 68}});
    out.set_estimates({{0, 256}, {0, 64}});
    root_in_32x8_blocks(out, x, y);
    g.split(y, y, gyi, 5, Halide::TailStrategy::RoundUp)
        .compute_at(out, xo)
        .reorder(gyi, x, y)
        .split(x, gxs, x, 32, Halide::TailStrategy::GuardWithIf)
        .gpu_threads(x)
        .split(y, gys, y, 2, Halide::TailStrategy::GuardWithIf)
        .gpu_threads(y);
    f.compute_at(g, x);
    const nlohmann::json report = imported_schedule_report(out, in, "per_host_thread");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s0");
    CHECK(kernel["points"][f.name()]["priced"].get<double>() == doctest::Approx(64.0 * 64 * 7));
}

TEST_CASE("an imported update whose checked tile runs inside its reduction stores at every step") {
    // As Anderson2021 orders depthwise_separable_conv's update: the
    // unrolled 4-row tile inside the 9-tap reduction, its rows checked
    // (GuardWithIf, and the row blocks fused with the batch's: Halide
    // keeps the check in every block). Each step stores the tile's rows
    // under their checks, which the compiler does not keep in registers
    // across the taps: 9 stores a point, where an unchecked tile stores
    // once.
    Halide::ImageParam in(Halide::Float(32), 4, "in");
    Halide::Func out("out");
    Halide::Var c("c"), x("x"), y("y"), n("n"), co("co"), ci("ci"), yo("yo"), yi("yi"), yn("yn");
    Halide::RDom r(0, 9, "r");
    out(c, x, y, n) = 0.0f;
    out(c, x, y, n) += in(c, x + r, y, n);
    in.set_estimates({{0, 32}, {0, 24}, {0, 16}, {0, 2}});
    out.set_estimates({{0, 32}, {0, 16}, {0, 16}, {0, 2}});
    out.compute_root().gpu_tile(c, x, co, yo, ci, yi, 16, 4);
    out.update()
        .split(c, co, ci, 16)
        .split(y, yo, yi, 4, Halide::TailStrategy::GuardWithIf)
        .unroll(yi)
        .reorder(yi, r, ci, co, x, yo, n)
        .fuse(yo, n, yn)
        .gpu_blocks(co, x, yn)
        .gpu_threads(ci);
    const nlohmann::json report = imported_schedule_report(out, in, "tile_inside_reduction");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s1");
    CHECK(kernel["global_store_bytes"]["priced"].get<double>() == doctest::Approx(16384.0 * 9 * 4));
}

namespace {

// The lowered check's report on Anderson2021's order for an update: an
// unchecked unrolled tile (the extents bounded, so no split leaves a tail)
// inside the 9-tap reduction, its two serial points along c (the buffer's
// innermost dimension) or along y (a row stride apart).
// The Func is named "rows" or "innermost".
nlohmann::json unchecked_tile_inside_reduction(bool across_rows) {
    Halide::ImageParam in(Halide::Float(32), 4, "in");
    Halide::Func out(across_rows ? "rows" : "innermost");
    Halide::Var c("c"), x("x"), y("y"), n("n"), co("co"), ci("ci"), cii("cii"), yo("yo"), yi("yi");
    Halide::RDom r(0, 9, "r");
    out(c, x, y, n) = 0.0f;
    out(c, x, y, n) += in(c, x + r, y, n);
    in.set_estimates({{0, 32}, {0, 24}, {0, 16}, {0, 2}});
    out.set_estimates({{0, 32}, {0, 16}, {0, 16}, {0, 2}});
    out.bound(c, 0, 32).bound(y, 0, 16);
    out.compute_root().gpu_tile(c, x, co, yo, ci, yi, 16, 4);
    Halide::Var yn("yn");
    if (across_rows) {
        out.update().split(c, co, ci, 16).split(y, yo, yi, 2).unroll(yi).reorder(yi, r, ci, co, x, yo, n);
    } else {
        out.update().split(c, co, ci, 16).split(ci, ci, cii, 2).unroll(cii).reorder(cii, r, ci, co, x, y, n);
        yo = y;
    }
    out.update().fuse(yo, n, yn).gpu_blocks(co, x, yn).gpu_threads(ci);
    return imported_schedule_report(out, in, across_rows ? "unchecked_rows" : "unchecked_innermost");
}

}  // namespace

TEST_CASE("an imported update whose unchecked tile spans rows inside its reduction stores at every step") {
    // Two accumulators a row stride apart may be one element for all the
    // compiler knows (the stride might be zero): it keeps neither in a
    // register, and each of the 9 taps loads and stores both (Anderson2021's
    // attention scores, a 4x4 tile). Along the innermost dimension they sit
    // a constant offset apart: stored once, after the taps.
    const nlohmann::json rows = passing_kernel(unchecked_tile_inside_reduction(true), "rows.s1");
    CHECK(rows["global_store_bytes"]["priced"].get<double>() == doctest::Approx(16384.0 * 9 * 4));
    const nlohmann::json innermost = passing_kernel(unchecked_tile_inside_reduction(false), "innermost.s1");
    CHECK(innermost["global_store_bytes"]["priced"].get<double>() == doctest::Approx(16384.0 * 4));
}

TEST_CASE("a per-block member's own thread loops widen the block the kernel launches") {
    // g, per block of out on thread loops of its own over its 32 x 3 rows,
    // beside out's 32 x 2 threads: Halide launches 32 x 3 threads, a third
    // of them idle while out computes (Anderson2021's depthwise_separable_conv:
    // pw's 16 x 16 beside the output's 16 x 14).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func g("g"), out("out");
    Halide::Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), gxs("gxs"), gys("gys");
    g(x, y) = in(x, y) * 2;
    out(x, y) = g(x, y) + g(x, y + 1);
    in.set_estimates({{0, 256}, {0, 65}});
    out.set_estimates({{0, 256}, {0, 64}});
    out.compute_root().split(x, xo, xi, 32).split(y, yo, yi, 2).reorder(xi, yi, xo, yo).gpu_blocks(xo, yo);
    out.gpu_threads(xi, yi);
    g.compute_at(out, xo)
        .split(x, gxs, x, 32, Halide::TailStrategy::GuardWithIf)
        .gpu_threads(x)
        .split(y, gys, y, 3, Halide::TailStrategy::GuardWithIf)
        .gpu_threads(y);
    const nlohmann::json report = imported_schedule_report(out, in, "member_threads_widen_block");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s0");
    CHECK(kernel["threads_per_block"]["priced"].get<double>() == 96);
}

TEST_CASE("an imported per-block Func whose threads run an unrolled tile inside its reduction loads an element "
          "once a step") {
    // As Anderson2021 computes resnet_block's conv1 (a 4 x 4 tile of
    // channels and batches per thread, unrolled inside the reduction): g,
    // per block on 32 thread loops of its own, runs 4 rows unrolled inside
    // its 16-step reduction. A step loads 4 elements of in(r, y) and one
    // of in(r, x) for its 4 points: 1.25 loads a point, not 2.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func g("g"), out("out");
    Halide::Var x("x"), y("y"), xo("xo"), gyi("gyi"), gxs("gxs");  // xo: root_in_32x8_blocks's
    Halide::RDom r(0, 16, "r");
    g(x, y) = 0.0f;
    g(x, y) += in(r, y) * in(r, x);
    out(x, y) = g(x, y) * 2.0f;
    in.set_estimates({{0, 16}, {0, 64}});
    out.set_estimates({{0, 64}, {0, 64}});
    root_in_32x8_blocks(out, x, y);
    g.compute_at(out, xo).split(x, gxs, x, 32, Halide::TailStrategy::GuardWithIf).gpu_threads(x);
    g.update()
        .split(y, y, gyi, 4, Halide::TailStrategy::GuardWithIf)
        .unroll(gyi)
        .reorder(gyi, r, x, y)
        .split(x, gxs, x, 32, Halide::TailStrategy::GuardWithIf)
        .gpu_threads(x);
    const nlohmann::json report = imported_schedule_report(out, in, "unrolled_block_tile");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s0");
    // 16 blocks of 32 x 8 points, 16 steps each: 65,536 update points.
    CHECK(kernel["global_load_bytes_by_func"][g.name()]["priced"].get<double>() == doctest::Approx(65536.0 * 1.25 * 4));
}

TEST_CASE("unrolled taps of constant bounds load an element once where their indices fold to one") {
    // out(x) sums in(x, r / 4) over four unrolled taps: each tap's row is
    // the number 0 in the code Halide writes, one load for all four (fuzz
    // seed 3160's mean over an up-sampled row).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func out("out");
    Halide::Var x("x"), xo("xo"), xi("xi");
    Halide::RDom r(0, 4, "r");
    out(x) = 0.0f;
    out(x) += in(x, r / 4);
    in.set_estimates({{0, 256}, {0, 1}});
    out.set_estimates({{0, 256}});
    out.compute_root().split(x, xo, xi, 32).gpu_blocks(xo).gpu_threads(xi);
    out.update().split(x, xo, xi, 32).reorder(r, xi, xo).gpu_blocks(xo).gpu_threads(xi).unroll(r);
    const nlohmann::json report = imported_schedule_report(out, in, "numbered_taps");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s1");
    // A load of in and one of the accumulator per point (four of in before).
    CHECK(kernel["global_load_bytes"]["priced"].get<double>() == doctest::Approx(256.0 * 2 * 4));
}

TEST_CASE("a per-block member's unrolled taps share the loads of one element") {
    // g sums in(x, y + r / 2) over four unrolled taps per point, per block
    // in shared memory: rows y and y + 1, two loads a point, not four
    // (fuzz seed 3150's per-block sum over up-sampled slices).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func g("g"), out("out");
    Halide::Var x("x"), y("y"), xo("xo"), gxs("gxs"), gxt("gxt"), gys("gys"), gyt("gyt");
    Halide::RDom r(0, 4, "r");
    g(x, y) = 0.0f;
    g(x, y) += in(x, y + r / 2);
    out(x, y) = g(x, y) * 2.0f;
    in.set_estimates({{0, 64}, {0, 66}});
    out.set_estimates({{0, 64}, {0, 64}});
    root_in_32x8_blocks(out, x, y);
    g.compute_at(out, xo).store_in(Halide::MemoryType::GPUShared);
    for (Halide::Stage stage : {Halide::Stage(g), g.update()}) {
        stage.split(x, gxs, gxt, 32, Halide::TailStrategy::GuardWithIf)
            .split(y, gys, gyt, 8, Halide::TailStrategy::GuardWithIf)
            .gpu_threads(gxt, gyt);
    }
    g.update().reorder(r, gxs, gys, gxt, gyt).unroll(r);
    const nlohmann::json report = imported_schedule_report(out, in, "block_member_taps");
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s0");
    // 16 blocks of 32 x 8 points.
    CHECK(kernel["global_load_bytes_by_func"][g.name()]["priced"].get<double>() == doctest::Approx(4096.0 * 2 * 4));
}

TEST_CASE("a per-thread member over a span every thread computes whole folds its rows to numbers") {
    // m(x) is the minimum over 13 rows of h, computed per thread: each
    // thread computes rows 0..12, unrolled, so a row's index is a number
    // and h's mirrored rows |y - 6| (7 of them) load once each, directly
    // and through the gather g inlined between them (fuzz seed 3302's
    // mirrored boundary under an up-sampling, per thread of a minimum).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::ImageParam index(Halide::Int(32), 2, "index");
    Halide::Func g("g"), h("h"), m("m");
    Halide::Var x("x"), y("y"), xo("xo"), xi("xi");
    Halide::RDom r(0, 13, "r");
    g(x, y) = in(Halide::clamp(index(x, y), 0, 63), y);
    h(x, y) = g(x, Halide::cast<int>(Halide::abs(y - 6))) + in(x, Halide::cast<int>(Halide::abs(y - 6)));
    m(x) = 1e9f;
    m(x) = Halide::min(m(x), h(x, r));
    in.set_estimates({{0, 64}, {0, 7}});
    index.set_estimates({{0, 64}, {0, 7}});
    m.set_estimates({{0, 64}});
    m.compute_root().split(x, xo, xi, 32).gpu_blocks(xo).gpu_threads(xi);
    m.update().split(x, xo, xi, 32).reorder(r, xi, xo).gpu_blocks(xo).gpu_threads(xi).unroll(r);
    h.compute_at(m, xi)
        .store_in(Halide::MemoryType::Register)
        .bound_storage(x, 1)
        .bound_storage(y, 13)
        .unroll(x)
        .unroll(y);
    const nlohmann::json report = imported_schedule_report(m, {in, index}, "numbered_member");
    const nlohmann::json kernel = passing_kernel(report, m.name() + ".s1");
    // Per thread: 7 rows of in, 7 of index and 7 gathered elements of in.
    CHECK(kernel["global_load_bytes_by_func"][h.name()]["priced"].get<double>() == doctest::Approx(64.0 * 21 * 4));
}

namespace {

// out(x, z) sums h(x, r) * weights(r, z) over 24 input channels r, its 12
// channels z in blocks of 8 checked per channel, each thread taking
// `per_thread` of them (unrolled); h, per thread, covers all 24 input
// channels whatever the thread's channels are. The lowered check's entry
// for out's update.
nlohmann::json member_beside_guarded_channels(int per_thread, const std::string &name, double *h_points) {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::ImageParam weights(Halide::Float(32), 2, "weights");
    Halide::Func h("h"), out("out");
    Halide::Var x("x"), c("c"), z("z"), xb("xb"), xi("xi"), zb("zb"), zi("zi"), zt("zt"), zs("zs");
    Halide::RDom r(0, 24, "r");
    h(x, c) = in(x, c) * 2.0f;
    out(x, z) = 0.0f;
    out(x, z) += h(x, r) * weights(r, z);
    in.set_estimates({{0, 16}, {0, 24}});
    weights.set_estimates({{0, 24}, {0, 12}});
    out.set_estimates({{0, 16}, {0, 12}});
    out.compute_root().split(x, xb, xi, 16).split(z, zb, zi, 4, Halide::TailStrategy::GuardWithIf);
    out.reorder(xi, zi, xb, zb).gpu_blocks(xb, zb).gpu_threads(xi, zi);
    out.update()
        .split(x, xb, xi, 16)
        .split(z, zb, zi, 8, Halide::TailStrategy::GuardWithIf)
        .split(zi, zt, zs, per_thread, Halide::TailStrategy::GuardWithIf)
        .reorder(r, zs, xi, zt, xb, zb)
        .gpu_blocks(xb, zb)
        .gpu_threads(xi, zt)
        .unroll(zs);
    h.compute_at(out, xi)
        .store_in(Halide::MemoryType::Register)
        .bound_storage(x, 1)
        .bound_storage(c, 24)
        .bound_extent(x, 1)
        .unroll(x)
        .unroll(c);
    const nlohmann::json report = imported_schedule_report(out, {in, weights}, name);
    const nlohmann::json kernel = passing_kernel(report, out.name() + ".s1");
    *h_points = kernel["points"][h.name()]["priced"].get<double>();
    return kernel;
}

}  // namespace

TEST_CASE("a per-thread member that does not follow a guarded loop is computed by the threads past its extent too") {
    // Two channels per thread: the last block's 2 threads past channel 11
    // compute h all the same, checked per channel inside h's level (fuzz
    // seed 3339): 8 thread tiles along the channels compute it, not the 6
    // with channels (16 x 6 x 24 = 2,304 before).
    double h_points = 0;
    member_beside_guarded_channels(2, "idle_threads_member", &h_points);
    CHECK(h_points == doctest::Approx(16.0 * 8 * 24));
    // One channel per thread: the check wraps the thread's whole body, h
    // included (fuzz seed 3182), and the 4 idle threads compute nothing.
    member_beside_guarded_channels(1, "idle_threads_no_member", &h_points);
    CHECK(h_points == doctest::Approx(16.0 * 12 * 24));
}

TEST_CASE("a member read under a causal mask is priced block by block where the mask lets it through") {
    // masked reads prod only where j <= i, a condition that loads nothing:
    // Halide's bounds inference narrows prod's region per block to the
    // keys at or below the diagonal, and a block past it computes none.
    // Priced at one interior block, the 16 blocks came to 16 x 256 points
    // (or to none, with the interior block past the diagonal); per block
    // they are 1,664 in the first column of blocks and 640 in the second.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var j("j"), i("i");
    Halide::Func prod("prod"), masked("masked");
    prod(j, i) = in(j, i) * in(i, j);
    masked(j, i) = Halide::select(j <= i, prod(j, i), 0.0f);
    in.set_estimates({{0, 64}, {0, 64}});
    masked.set_estimates({{0, 64}, {0, 64}});
    root_in_32x8_blocks(masked, j, i);
    prod.compute_at(masked, Halide::Var("xo"));
    const nlohmann::json kernel =
        passing_kernel(imported_schedule_report(masked, in, "causal_mask_member"), masked.name() + ".s0");
    CHECK(kernel["points"][prod.name()]["lowered"].get<double>() == 1664 + 640);
    CHECK(kernel["points"][prod.name()]["priced"].get<double>() == 1664 + 640);
}

TEST_CASE("a clamped part of a concatenation is computed only in the blocks that read it") {
    // joined reads part at min(c, 11) where c < 12: in a block of one
    // channel past 11 the narrowed bounds stay at channel 11, but the
    // condition cannot hold there, and Halide computes no part in it (its
    // Box::used): 12 of the 16 blocks along the channels, 768 points, not
    // 1,024. In blocks of 4 channels the channel loop runs inside part's
    // level, and Halide only narrows it: the last block computes the one
    // channel the clamp leaves (fuzz seed 3192), 2 x (3 x 4 + 1) x 32.
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), c("c"), xo("xo"), co("co"), xi("xi"), ci("ci");
    Halide::Func part("part"), joined("joined");
    part(x, c) = in(x, c) * 2.0f;
    joined(x, c) = Halide::select(c < 12, part(x, Halide::min(c, 11)), in(x, Halide::max(c - 12, 0)));
    in.set_estimates({{0, 64}, {0, 12}});
    joined.set_estimates({{0, 64}, {0, 16}});
    joined.compute_root().gpu_tile(x, c, xo, co, xi, ci, 32, 1);
    part.compute_at(joined, xo);
    const nlohmann::json kernel =
        passing_kernel(imported_schedule_report(joined, in, "concatenation_part"), joined.name() + ".s0");
    CHECK(kernel["points"][part.name()]["lowered"].get<double>() == 768);
    CHECK(kernel["points"][part.name()]["priced"].get<double>() == 768);

    Halide::Func part4("part4"), joined4("joined4");
    part4(x, c) = in(x, c) * 2.0f;
    joined4(x, c) = Halide::select(c < 12, part4(x, Halide::min(c, 11)), in(x, Halide::max(c - 12, 0)));
    joined4.set_estimates({{0, 64}, {0, 16}});
    joined4.compute_root().gpu_tile(x, c, xo, co, xi, ci, 32, 4);
    part4.compute_at(joined4, xo);
    const nlohmann::json in_blocks_of_4 =
        passing_kernel(imported_schedule_report(joined4, in, "concatenation_part_4"), joined4.name() + ".s0");
    CHECK(in_blocks_of_4["points"][part4.name()]["lowered"].get<double>() == 2 * 13 * 32);
    CHECK(in_blocks_of_4["points"][part4.name()]["priced"].get<double>() == 2 * 13 * 32);
}

TEST_CASE("a member of a factored reduction is priced lane block by lane block where the row's end clips it") {
    // total sums prod over a row of 40 in lanes of 16, factored: lane l
    // reads prod at l, l + 16 and l + 32 where that is inside the row (the
    // guarded split's where clause). Per block of 8 lanes, prod is computed
    // over what the block reads: [0, 39] in the first block, [8, 39] in the
    // second (the clause stops it at the row's end), 72 points per channel.
    // Priced at one interior block, both came to 32 (fuzz seeds 3197, 3313).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), c("c"), lane("lane"), lb("lb"), li("li"), xs("xs"), xt("xt");
    Halide::RDom r(0, 40);
    Halide::RVar ro("ro"), ri("ri");
    Halide::Func prod("prod"), total("total");
    prod(x, c) = in(x, c) * 2.0f;
    total(c) = 0.0f;
    total(c) += prod(r, c);
    in.set_estimates({{0, 40}, {0, 3}});
    total.set_estimates({{0, 3}});
    Halide::Func lanes = total.update().split(r.x, ro, ri, 16, Halide::TailStrategy::GuardWithIf).rfactor(ri, lane);
    total.compute_root().gpu_blocks(c);
    total.update().gpu_blocks(c);
    lanes.compute_root()
        .split(lane, lb, li, 8, Halide::TailStrategy::GuardWithIf)
        .reorder(li, c, lb)
        .gpu_blocks(c, lb)
        .gpu_threads(li);
    lanes.update()
        .split(lane, lb, li, 8, Halide::TailStrategy::GuardWithIf)
        .reorder(ro, li, c, lb)
        .gpu_blocks(c, lb)
        .gpu_threads(li);
    prod.compute_at(lanes, c)
        .store_in(Halide::MemoryType::GPUShared)
        .split(x, xs, xt, 8, Halide::TailStrategy::GuardWithIf)
        .reorder(xs, c, xt)
        .gpu_threads(xt);
    const nlohmann::json kernel =
        passing_kernel(imported_schedule_report(total, in, "factored_row_member"), lanes.name() + ".s1");
    CHECK(kernel["points"][prod.name()]["lowered"].get<double>() == 3 * (40 + 32));
    CHECK(kernel["points"][prod.name()]["priced"].get<double>() == 3 * (40 + 32));
}

TEST_CASE("a per-thread histogram is initialised over every bin its update may store to") {
    // out reads bin 2 of a histogram each thread computes for itself, but
    // Halide initialises every bin the update may store to (its clamp
    // bounds them to [0, 10]) wherever the histogram is computed: 11 + 8
    // points per thread, not 1 + 8 (Mullapudi2016's bilateral_grid, whose
    // grid per thread covers 11 to 13 bins where its blur reads 5).
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Var x("x"), y("y"), b("b"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Halide::RDom r(0, 8);
    Halide::Func hist("hist"), out("out");
    hist(b, y) = 0.0f;
    hist(Halide::clamp(Halide::cast<int>(in(r, y) * 10.0f), 0, 10), y) += 1.0f;
    out(x, y) = hist(2, y) * in(x, y);
    in.set_estimates({{0, 32}, {0, 32}});
    out.set_estimates({{0, 32}, {0, 32}});
    out.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 16, 8);
    hist.compute_at(out, xi);
    const nlohmann::json kernel = passing_kernel(imported_schedule_report(out, in, "thread_histogram"), out.name() + ".s0");
    CHECK(kernel["points"][hist.name()]["lowered"].get<double>() == 32 * 32 * (11 + 8));
    CHECK(kernel["points"][hist.name()]["priced"].get<double>() == 32 * 32 * (11 + 8));
}
