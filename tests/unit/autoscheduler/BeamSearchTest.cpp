// The search's switches change only what they name, a wider beam never
// answers worse, sample_index draws distinct, valid schedules
// deterministically, and the stage whose tiling is searched is the one that
// does a Func's work.
#include "Autoscheduler.h"
#include "BeamSearch.h"
#include "BlurPipeline.h"
#include "FunctionDAG.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/DefaultCostModel.h"

#include <doctest/doctest.h>

#include <set>

using namespace strata::autoscheduler;
using strata::testing::quick_params;

namespace {

// A two-stage product: enough structure for placements and tilings to matter.
struct MatMul {
    Halide::ImageParam a{Halide::Float(32), 2, "a"}, b{Halide::Float(32), 2, "b"};
    Halide::Func product{"product"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    Halide::RDom k{0, 512, "k"};
    MatMul() {
        product(x, y) = 0.0f;
        product(x, y) += a(k, y) * b(x, k);
        out(x, y) = product(x, y) * 2;
        a.set_estimates({{0, 512}, {0, 512}});
        b.set_estimates({{0, 512}, {0, 512}});
        out.set_estimates({{0, 512}, {0, 512}});
    }
};

AutoscheduleReport schedule(Params p, std::string *source = nullptr, bool matmul = false) {
    Halide::AutoSchedulerResults results;
    AutoscheduleReport report;
    if (matmul) {
        MatMul m;
        Halide::Pipeline pipeline(m.out);
        report = autoschedule(pipeline, strata::testing::cuda_target(), p, &results);
    } else {
        strata::testing::BlurPipeline b(1024, 1024);
        Halide::Pipeline pipeline(b.by);
        report = autoschedule(pipeline, strata::testing::cuda_target(), p, &results);
    }
    if (source) *source = strata::testing::without_unique_suffixes(results.schedule_source);
    return report;
}

// A recursive filter along x, as iir_blur's: a pure definition copies the
// image, then a forward and a backward scan walk each row. The scans cover
// one column less than the copy, and their pure loops (y, c) are not the
// copy's (x, y, c).
struct RowScans {
    static constexpr int kWidth = 1536;
    Halide::ImageParam in{Halide::Float(32), 3, "in"};
    Halide::Func scanned{"scanned"};
    Halide::Var x{"x"}, y{"y"}, c{"c"};
    Halide::RDom forward{1, kWidth - 1, "forward"}, backward{1, kWidth - 1, "backward"};
    RowScans() {
        scanned(x, y, c) = in(x, y, c);
        scanned(forward.x, y, c) = 0.9f * scanned(forward.x, y, c) + 0.1f * scanned(forward.x - 1, y, c);
        const Halide::Expr back = kWidth - 1 - backward.x;
        scanned(back, y, c) = 0.9f * scanned(back, y, c) + 0.1f * scanned(back + 1, y, c);
        in.set_estimates({{0, kWidth}, {0, 2560}, {0, 3}});
        scanned.set_estimates({{0, kWidth}, {0, 2560}, {0, 3}});
    }
};

}  // namespace

TEST_CASE("memoize=0 prices every candidate from scratch and finds the very same schedule") {
    // free_stages=1: phase 2 frees the costliest kernel of phase 1, which it
    // must rank by the same prices with memoization off.
    for (auto [matmul, free_stages] : {std::pair{false, 0}, {true, 0}, {false, 1}, {true, 1}}) {
        const std::string which =
            std::string(matmul ? "matmul" : "blur") + ", free_stages=" + std::to_string(free_stages);
        INFO(which);
        Params on = quick_params(), off = quick_params();
        on.free_stages = off.free_stages = free_stages;
        off.memoize = false;
        std::string a, b;
        const AutoscheduleReport r_on = schedule(on, &a, matmul), r_off = schedule(off, &b, matmul);
        CHECK(r_on.predicted_seconds == doctest::Approx(r_off.predicted_seconds));
        CHECK(r_on.evaluations == r_off.evaluations);
    }
}

TEST_CASE("threads=1 and threads=4 search alike: same schedule, price and statistics, memoized or not") {
    // The kernels a step analyses side by side are cached in queue order and
    // the candidates priced in order: nothing may follow the threads' timing.
    MatMul m;
    const FunctionDAG dag(Halide::Pipeline(m.out).outputs());
    const strata::costmodel::GpuSpec &spec = strata::costmodel::GpuSpec::by_name("a100");
    const std::unique_ptr<strata::costmodel::CostModel> model = strata::costmodel::make_default_cost_model(spec);
    for (bool memoize : {true, false}) {
        INFO("memoize " << memoize);
        Params one = quick_params(), four = quick_params();
        one.memoize = four.memoize = memoize;
        one.threads = 1;
        four.threads = 4;
        const SearchResult a = BeamSearch(dag, spec, *model, one).run();
        const SearchResult b = BeamSearch(dag, spec, *model, four).run();
        CHECK(a.schedule.hash() == b.schedule.hash());
        CHECK(a.cost == b.cost);
        CHECK(a.stats.candidates == b.stats.candidates);
        CHECK(a.stats.kernels_featurized == b.stats.kernels_featurized);
        CHECK(a.stats.kernel_feature_hits == b.stats.kernel_feature_hits);
        CHECK(a.stats.kernels_priced == b.stats.kernels_priced);
        CHECK(a.stats.kernel_cost_hits == b.stats.kernel_cost_hits);
        CHECK(a.finalists.size() == b.finalists.size());
    }
    // Through the whole call, on the blur too: the same schedule source.
    for (bool matmul : {false, true}) {
        INFO((matmul ? "matmul" : "blur"));
        Params one = quick_params(), four = quick_params();
        one.threads = 1;
        four.threads = 4;
        std::string source_one, source_four;
        const AutoscheduleReport r_one = schedule(one, &source_one, matmul);
        const AutoscheduleReport r_four = schedule(four, &source_four, matmul);
        CHECK(source_one == source_four);
        CHECK(r_one.predicted_seconds == r_four.predicted_seconds);
    }
}

TEST_CASE("the same pipeline built twice in one process is searched alike, though Halide renames its Funcs") {
    // The second build's Funcs are "product$1", "out$1", ...: the tilings
    // sampled for a Func must not follow the suffix (they did, and with
    // tied prices the two searches kept different candidates).
    for (bool matmul : {false, true}) {
        const std::string which = matmul ? "matmul" : "blur";
        INFO(which);
        std::string first, second;
        const AutoscheduleReport a = schedule(quick_params(), &first, matmul);
        const AutoscheduleReport b = schedule(quick_params(), &second, matmul);
        CHECK(first == second);
        CHECK(a.evaluations == b.evaluations);
        CHECK(a.predicted_seconds == b.predicted_seconds);
    }
}

TEST_CASE("two_phase=0 searches every Func in the full space; sampling=0 enumerates every tiling") {
    Params two = quick_params(), one = quick_params(), full = quick_params();
    one.two_phase = false;
    full.sampling = false;
    const AutoscheduleReport r_two = schedule(two, nullptr, true), r_one = schedule(one, nullptr, true),
                             r_full = schedule(full, nullptr, true);
    CHECK(r_one.evaluations > 0);
    CHECK(r_full.evaluations > r_two.evaluations);
    // Wider spaces never answer worse: each contains the other's answer or better.
    CHECK(r_full.predicted_seconds <= r_two.predicted_seconds * (1 + 1e-9));
}

TEST_CASE("a wider beam never predicts a worse schedule than a narrower one") {
    for (bool matmul : {false, true}) {
        double previous = std::numeric_limits<double>::infinity();
        for (int beam : {2, 8, 32, 128}) {
            Params p = quick_params();
            p.beam_size = beam;
            const double cost = schedule(p, nullptr, matmul).predicted_seconds;
            INFO("beam " << beam);
            CHECK(cost <= previous * (1 + 1e-9));
            previous = cost;
        }
    }
}

TEST_CASE("sample_index draws distinct, valid schedules, the same ones for the same seed") {
    std::set<std::string> sources;
    MatMul m;
    Halide::Pipeline pipeline(m.out);
    for (int i = 0; i < 4; ++i) {
        Params p = quick_params();
        p.sample_index = i;
        Halide::AutoSchedulerResults first, again;
        const AutoscheduleReport r = autoschedule(pipeline, strata::testing::cuda_target(), p, &first);
        // A second call on the same pipeline starts from the user's Funcs again.
        autoschedule(pipeline, strata::testing::cuda_target(), p, &again);
        CHECK(first.schedule_source == again.schedule_source);
        CHECK(std::isfinite(r.predicted_seconds));
        CHECK_NOTHROW(pipeline.compile_to_module({m.a, m.b}, "sample", strata::testing::cuda_target()));
        // The header names the sample; the schedule itself must differ.
        sources.insert(first.schedule_source.substr(first.schedule_source.find('\n')));
    }
    CHECK(sources.size() == 4);
    Params too_many = quick_params();
    too_many.sample_index = 1 << 20;
    CHECK_THROWS_WITH(autoschedule(pipeline, strata::testing::cuda_target(), too_many, nullptr),
                      doctest::Contains("asks for more schedules than"));
}

TEST_CASE("a scan's tiling is searched, not its initialization's") {
    // Before, the stage with the most points (the copy) had its tiling
    // searched and the scans, with other pure loops, took the default: the
    // answer could not beat the same schedule with default-tiled scans.
    RowScans p;
    const FunctionDAG dag(Halide::Pipeline(p.scanned).outputs());
    const strata::costmodel::GpuSpec &spec = strata::costmodel::GpuSpec::by_name("a100");
    const std::unique_ptr<strata::costmodel::CostModel> model = strata::costmodel::make_default_cost_model(spec);
    BeamSearch search(dag, spec, *model, quick_params());
    const SearchResult answer = search.run();
    const Node &node = *dag.node("scanned");
    REQUIRE(answer.schedule.choice(node.id).placement == Placement::Root);
    FuncChoice defaulted = answer.schedule.choice(node.id);
    for (const auto &stage : node.stages) {
        if (stage->is_update()) defaulted.stages[stage->index].tiling = default_tiling(pure_extents(*stage), spec);
    }
    Schedule with_default_scans = answer.schedule;
    with_default_scans.set(node.id, std::move(defaulted));
    CHECK(answer.cost < search.cost(with_default_scans));
}
