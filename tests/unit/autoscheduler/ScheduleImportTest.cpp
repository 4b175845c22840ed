// import_schedule() reads the schedule Halide's Funcs carry as Strata's
// choices: how a thread's serial points lie (compact or strided, unrolled or
// a loop), and the wrapper Funcs another autoscheduler made with Func::in().
#include "FunctionDAG.h"
#include "CodeSize.h"
#include "ScheduleImport.h"
#include "ScheduleWriter.h"

#include "Autoscheduler.h"
#include "BlurPipeline.h"
#include "SchedulingTestSupport.h"

#include <cmath>

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using Halide::MemoryType;
using Halide::TailStrategy;
using Halide::Var;

namespace {

const strata::costmodel::GpuSpec kSpec = strata::costmodel::GpuSpec::by_name("a100");

// The tiling import_schedule() reads for by in 32×16 blocks of 32×4
// threads, each thread 4 points along y: split off inside the thread loop
// (y = 16·yo + 4·t + s, as Anderson2021 writes it) or stepping over it
// (y = 16·yo + 4·s + t: thread t owns t, t+4, t+8, t+12).
GpuTiling four_rows_per_thread(bool split_inside_thread_loop) {
    strata::testing::BlurPipeline b(256, 256);
    Var yo("yo"), yi("yi"), thread("t"), serial("s"), xo("xo"), xi("xi");
    b.by.compute_root().split(b.y, yo, yi, 16, TailStrategy::GuardWithIf);
    if (split_inside_thread_loop) {
        b.by.split(yi, thread, serial, 4, TailStrategy::GuardWithIf).unroll(serial);
    } else {
        b.by.split(yi, serial, thread, 4, TailStrategy::GuardWithIf);
    }
    b.by.split(b.x, xo, xi, 32, TailStrategy::GuardWithIf)
        .reorder(serial, xi, thread, xo, yo)
        .gpu_blocks(xo, yo)
        .gpu_threads(xi, thread);
    FunctionDAG dag({b.by});
    const ImportedSchedule imported = import_schedule(dag, kSpec);
    return imported.schedule.choice(dag.node(b.by.name())->id).stages[0].tiling;
}

}  // namespace

TEST_CASE("a serial loop split off inside the thread loop is a compact tile") {
    const GpuTiling tiling = four_rows_per_thread(true);
    CHECK(tiling.compact);
    CHECK_FALSE(tiling.rolled);  // unrolled: straight-line code
    REQUIRE(tiling.dims.size() == 2);
    CHECK(tiling.dims[1].threads == 4);
    CHECK(tiling.dims[1].serial == 4);
}

TEST_CASE("a serial loop that steps over the thread loop is a strided tile") {
    const GpuTiling tiling = four_rows_per_thread(false);
    CHECK_FALSE(tiling.compact);
    REQUIRE(tiling.dims.size() == 2);
    CHECK(tiling.dims[1].threads == 4);
    CHECK(tiling.dims[1].serial == 4);
}

TEST_CASE("a wrapper made with in() is a Node between the Func it wraps and its consumer, as Halide lowers it") {
    strata::testing::BlurPipeline b(256, 256);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.by.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    b.bx.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    Halide::Func staged = b.bx.in(b.by);
    staged.compute_at(b.by, xi).store_in(MemoryType::Register);

    const FunctionDAG searched({b.by});
    CHECK(searched.node(staged.name()) == nullptr);

    const FunctionDAG lowered({b.by}, Wrappers::AsLowered);
    const Node *wrapper = lowered.node(staged.name());
    REQUIRE(wrapper != nullptr);
    const Stage &consumer = *lowered.node(b.by.name())->stages[0];
    REQUIRE(consumer.producers.size() == 1);
    CHECK(consumer.producers[0]->producer == wrapper);
    REQUIRE(wrapper->stages[0]->producers.size() == 1);
    CHECK(wrapper->stages[0]->producers[0]->producer->name == b.bx.name());
    // Rows y-1..y+1 of a thread's point, through the wrapper.
    CHECK(wrapper->root_region[1].extent == 256 + 2);

    const ImportedSchedule imported = import_schedule(lowered, kSpec);
    const FuncChoice &choice = imported.schedule.choice(wrapper->id);
    CHECK(choice.placement == Placement::Thread);
    CHECK(choice.kernel_func == lowered.node(b.by.name())->id);

    // The user's Funcs are untouched: by still calls bx itself.
    const FunctionDAG again({b.by});
    const Stage &original = *again.node(b.by.name())->stages[0];
    REQUIRE(original.producers.size() == 1);
    CHECK(original.producers[0]->producer->name == b.bx.name());
}

TEST_CASE("a whole dimension looped inside the thread loops is each thread's serial points, not blocks") {
    // As Li2018 leaves a histogram's bins: blocks and threads over y, x run
    // whole by every thread, as a loop (300 points: far more registers than
    // a thread has, were they unrolled).
    strata::testing::BlurPipeline b(300, 256);
    Var yo("yo"), yi("yi");
    b.by.compute_root()
        .split(b.y, yo, yi, 32, TailStrategy::GuardWithIf)
        .reorder(b.x, yi, yo)
        .gpu_blocks(yo)
        .gpu_threads(yi);
    FunctionDAG dag({b.by});
    const ImportedSchedule imported = import_schedule(dag, kSpec);
    const GpuTiling &tiling = imported.schedule.choice(dag.node(b.by.name())->id).stages[0].tiling;
    REQUIRE(tiling.dims.size() == 2);
    CHECK(tiling.dims[0].threads == 1);
    CHECK(tiling.dims[0].serial == 300);
    CHECK(tiling.dims[1].threads == 32);
    CHECK(tiling.dims[1].serial == 1);
    CHECK(tiling.rolled);

    Halide::Pipeline pipeline(b.by);
    const PredictionReport prediction =
        predict_existing_schedule(pipeline, strata::testing::cuda_target(), Params{});
    CHECK(std::isfinite(prediction.predicted_seconds));
    CHECK(prediction.predicted_seconds > 0);
}

TEST_CASE("a per-block member runs on its own thread loops, or on one thread without them") {
    // As Anderson2021 writes a member's thread loop: a split whose inner
    // loop keeps the variable's name (Halide qualifies it "x.x").
    strata::testing::BlurPipeline b(256, 256);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), x_serial("x_serial");
    b.by.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 32, 8);
    b.bx.compute_at(b.by, xo).split(b.x, x_serial, b.x, 16, TailStrategy::GuardWithIf).gpu_threads(b.x);
    {
        FunctionDAG dag({b.by});
        const ImportedSchedule imported = import_schedule(dag, kSpec);
        const FuncChoice &bx = imported.schedule.choice(dag.node(b.bx.name())->id);
        CHECK(bx.placement == Placement::Block);
        CHECK(bx.imported_threads == std::vector<int64_t>{16, 1});
    }
    strata::testing::BlurPipeline c(256, 256);
    c.by.compute_root().gpu_tile(c.x, c.y, xo, yo, xi, yi, 32, 8);
    c.bx.compute_at(c.by, xo);  // as Mullapudi2016 places it
    FunctionDAG dag({c.by});
    const ImportedSchedule imported = import_schedule(dag, kSpec);
    CHECK(imported.schedule.choice(dag.node(c.bx.name())->id).imported_threads == std::vector<int64_t>{1, 1});
}

TEST_CASE("a schedule the model finds cannot run is priced at infinity with the reason") {
    // 64×32 threads a block: twice what the GPU allows.
    strata::testing::BlurPipeline b(256, 256);
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    b.bx.compute_root().gpu_tile(b.x, b.y, xo, yo, xi, yi, 16, 16);
    b.by.gpu_tile(b.x, b.y, xo, yo, xi, yi, 64, 32);
    const PredictionReport prediction =
        predict_existing_schedule(Halide::Pipeline(b.by), strata::testing::cuda_target(), Params{});
    CHECK(std::isinf(prediction.predicted_seconds));
    INFO(prediction.why_illegal);
    CHECK(prediction.why_illegal.find(b.by.name() + ".s0") != std::string::npos);
}

TEST_CASE("what the writer emits for shifted tails and one checked copy reads back as the same tiling") {
    // bx reads its input through a boundary condition, so its tails may be
    // shifted (CodeSize.h): 32×16 tiles of 32×4 threads, 4 rows a thread.
    for (bool partitioned : {true, false}) {
        INFO("partitioned: " << partitioned);
        strata::testing::BlurPipeline b(256, 256);
        FunctionDAG dag({b.by});
        const Node &bx = *dag.node(b.bx.name());
        Schedule s(dag);
        StageChoice choice;
        choice.tiling = GpuTiling::uniform(pure_extents(*bx.stages[0]), {32, 4}, {1, 4}, /*compact=*/true);
        choice.tiling = with_shifted_tails(dag, bx, *bx.stages[0], choice.tiling);
        REQUIRE(choice.tiling.dims[0].tail == TileTail::ShiftedInwards);
        REQUIRE(choice.tiling.dims[1].tail == TileTail::ShiftedInwards);
        choice.tiling.partitioned = partitioned;
        s.set(bx.id, FuncChoice::root({choice}));
        complete_with_defaults(s, kSpec);
        ScheduleWriter writer(dag, s, kSpec);
        writer.apply();
        FunctionDAG applied({b.by});
        const ImportedSchedule imported = import_schedule(applied, kSpec);
        const GpuTiling &read = imported.schedule.choice(applied.node(b.bx.name())->id).stages[0].tiling;
        CHECK(read.key() == choice.tiling.key());
        CHECK(read == choice.tiling);
    }
}
