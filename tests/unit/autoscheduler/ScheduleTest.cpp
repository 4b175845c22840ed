// Schedule::can_place: where a Func may be computed inside another's
// kernel. Each refusal stands for a schedule Halide would not take; the
// case here lowers the refused schedule to show that it still would not.
// And a schedule's hash, kept as its choices are set, and its copies,
// which share storage until one of them changes.
#include "LoweringProbe.h"
#include "Schedule.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using strata::testing::id_of;

namespace {

const strata::costmodel::GpuSpec &a100() { return strata::costmodel::GpuSpec::by_name("a100"); }

// in → blur_x → blur_y → out, 3-tap stencils over a 2-D image.
struct TwoStageBlur {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func blur_x{"blur_x"}, blur_y{"blur_y"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    TwoStageBlur() {
        blur_x(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
        blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
        out(x, y) = blur_y(x, y) * 2.0f;
        in.set_estimates({{-1, 2050}, {-1, 2050}});
        out.set_estimates({{0, 2048}, {0, 2048}});
    }
};

}  // namespace

TEST_CASE("a per-block buffer is not placed under another: Halide cannot prove its storage bound in the kernel") {
    TwoStageBlur p;
    FunctionDAG dag({p.out});
    const int out = id_of(dag, "out"), blur_y = id_of(dag, "blur_y"), blur_x = id_of(dag, "blur_x");
    Schedule s(dag);
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({2048, 2048}, {32, 8}, {1, 1});
    s.set(out, FuncChoice::root({tiled}));
    s.set(blur_y, FuncChoice::at(Placement::Block, out, 0));
    CHECK_FALSE(s.can_place(blur_x, Placement::Block, out, 0));
    CHECK_FALSE(s.can_place(blur_x, Placement::Thread, out, 0));
    CHECK(s.can_place(blur_x, Placement::Root));
    CHECK(s.can_place(blur_x, Placement::Inline));

    // Placed there anyway, the writer's bounds are right and Halide still
    // leaves their check inside the kernel.
    s.set(blur_x, FuncChoice::at(Placement::Block, out, 0));
    complete_with_defaults(s, a100());
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    REQUIRE(error.has_value());
    CHECK(funcs_named_in(*error, {p.blur_x.name(), p.blur_y.name(), p.out.name()}) ==
          std::set<std::string>{p.blur_x.name()});
}

TEST_CASE("a schedule's hash follows its decisions, whatever the order they were set in") {
    TwoStageBlur p;
    FunctionDAG dag({p.out});
    const int out = id_of(dag, "out"), blur_y = id_of(dag, "blur_y"), blur_x = id_of(dag, "blur_x");
    StageChoice tiled;
    tiled.tiling = GpuTiling::uniform({2048, 2048}, {32, 8}, {1, 1});
    const auto root = std::make_shared<const FuncChoice>(FuncChoice::root({tiled}));
    const auto inlined = std::make_shared<const FuncChoice>(FuncChoice::inlined());
    const auto per_block = std::make_shared<const FuncChoice>(FuncChoice::at(Placement::Block, out, 0));

    Schedule a(dag), b(dag);
    a.set(out, root);
    a.set(blur_y, per_block);
    a.set(blur_x, inlined);
    b.set(blur_x, root);  // decided, then changed
    b.set(blur_x, inlined);
    b.set(blur_y, per_block);
    b.set(out, root);
    CHECK(a.hash() == b.hash());
    CHECK(a.tie_order_with(blur_x, inlined->hash()) == b.tie_order_with(blur_x, inlined->hash()));

    // hash_with(): the hash the schedule has once the Func takes that choice,
    // for a decided Func and for an undecided one.
    const uint64_t root_hash = root->hash();
    CHECK(a.hash_with(blur_x, root_hash) != a.hash());
    Schedule changed = a;
    changed.set(blur_x, root);
    CHECK(a.hash_with(blur_x, root_hash) == changed.hash());
    CHECK(a.hash_with(blur_x, inlined->hash()) == a.hash());
    Schedule partial(dag);
    partial.set(out, root);
    Schedule more = partial;
    more.set(blur_y, per_block);
    CHECK(partial.hash_with(blur_y, per_block->hash()) == more.hash());
    CHECK(partial.hash() != more.hash());
}

TEST_CASE("a copy shares its choices until one of the two is changed, in every chunk of nodes") {
    // 150 Funcs: more nodes than one chunk of the schedule's storage holds.
    Halide::ImageParam in(Halide::Float(32), 1, "in");
    Halide::Var x("x");
    std::vector<Halide::Func> chain;
    Halide::Func previous = Halide::lambda(x, in(x));
    for (int i = 0; i < 150; ++i) {
        Halide::Func f("f" + std::to_string(i));
        f(x) = previous(x) + 1.0f;
        chain.push_back(f);
        previous = f;
    }
    in.set_estimates({{0, 1024}});
    previous.set_estimates({{0, 1024}});
    FunctionDAG dag({previous});
    Schedule original(dag);
    complete_with_defaults(original, a100());
    const uint64_t original_hash = original.hash();
    std::vector<Placement> placements;
    for (int node = 0; node < original.size(); ++node) {
        placements.push_back(original.decided(node) ? original.choice(node).placement : Placement::Root);
    }

    Schedule copy = original;
    const int first = id_of(dag, "f3"), last = id_of(dag, "f140");
    for (int node : {first, last}) {
        copy.set(node, FuncChoice::root({StageChoice{}}));
        CHECK(copy.choice(node).placement == Placement::Root);
    }
    CHECK(original.hash() == original_hash);
    for (int node = 0; node < original.size(); ++node) {
        if (original.decided(node)) CHECK(original.choice(node).placement == placements[node]);
    }
    CHECK(copy.hash() != original.hash());
    copy.set(first, original.shared_choice(first));
    copy.set(last, original.shared_choice(last));
    CHECK(copy.hash() == original.hash());
}
