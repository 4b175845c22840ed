// CodeSize: which kernels shrink_code_within() gives one copy of their
// code (tails shifted inwards, else unpartitioned), against a price that
// charges each change a known amount; where tails may be shifted; that
// Halide, given what the writer emits for such a kernel, lowers one copy of
// its unrolled points instead of an interior and borders; and which
// per-block members read through a division Halide bounds with guarded and
// with shifted tails (shift_tails_under_divisions).
#include "CodeSize.h"
#include "LoweringProbe.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

using namespace strata::autoscheduler;
using strata::testing::id_of;

namespace {

const strata::costmodel::GpuSpec &a100() { return strata::costmodel::GpuSpec::by_name("a100"); }

// in, read through a boundary condition (so the Funcs may be computed
// past their regions) → light (one load per point) and heavy (five loads
// and their sums) → out, each Func its own kernel, 2-D.
struct ThreeKernels {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func light{"light"}, heavy{"heavy"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    ThreeKernels() {
        Halide::Func edge = Halide::BoundaryConditions::repeat_edge(in);
        light(x, y) = edge(x, y) * 2;
        heavy(x, y) = edge(x, y) + edge(x + 1, y) + edge(x, y + 1) + edge(x + 1, y + 1) + edge(x + 2, y + 2);
        out(x, y) = light(x, y) + heavy(x, y);
        in.set_estimates({{0, 1010}, {0, 1010}});
        out.set_estimates({{0, 1000}, {0, 1000}});
    }
};

// Every Func its own kernel, 32 threads along x; `serial` unrolled points
// along y per thread for light and heavy, one for the others.
Schedule own_kernels(const FunctionDAG &dag, int64_t serial) {
    Schedule s(dag);
    for (const Node *node : dag.funcs()) {
        const bool unrolled = node->id == id_of(dag, "light") || node->id == id_of(dag, "heavy");
        StageChoice c;
        c.tiling = GpuTiling::uniform({1000, 1000}, {32, 1}, {1, unrolled ? serial : 1}, true);
        s.set(node->id, FuncChoice::root({c}));
    }
    return s;
}

bool is_shifted(const GpuTiling &t) {
    return std::any_of(t.dims.begin(), t.dims.end(), [](const DimTiling &d) { return d.tail == TileTail::ShiftedInwards; });
}

// Kernels left as one checked copy (a shifted one has nothing to check).
int unpartitioned(const Schedule &s) {
    int n = 0;
    for (const Node *node : s.dag().funcs()) {
        const GpuTiling &t = s.choice(node->id).stages[0].tiling;
        n += !t.partitioned && !is_shifted(t);
    }
    return n;
}

// Halvings of light's and heavy's serial points from own_kernels(dag, 4).
int halvings(const Schedule &s) {
    int n = 0;
    for (const char *name : {"light", "heavy"}) {
        const int id = id_of(s.dag(), name);
        for (int64_t serial = s.choice(id).stages[0].tiling.serial_per_thread(); serial < 4; serial *= 2) ++n;
    }
    return n;
}

int shifted(const Schedule &s) {
    int n = 0;
    for (const Node *node : s.dag().funcs()) n += is_shifted(s.choice(node->id).stages[0].tiling);
    return n;
}

// Stores into `buffer` in the lowered code, counted by a pass that stops
// lowering before code generation.
struct StoreCount {
    int stores = 0;
};

class CountStores : public Halide::Internal::IRMutator {
public:
    explicit CountStores(std::string buffer) : buffer_(std::move(buffer)) {}
    using IRMutator::mutate;
    Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &s) override {
        struct Visitor : Halide::Internal::IRVisitor {
            std::string buffer;
            int stores = 0;
            using IRVisitor::visit;
            void visit(const Halide::Internal::Store *op) override {
                stores += op->name == buffer;
                IRVisitor::visit(op);
            }
        } v;
        v.buffer = buffer_;
        s.accept(&v);
        throw StoreCount{v.stores};
    }

private:
    std::string buffer_;
};

int lowered_stores(Halide::Func output, const std::string &buffer) {
    Halide::Pipeline p(output);
    p.add_custom_lowering_pass(new CountStores(buffer));
    try {
        p.compile_to_module(p.infer_arguments(), "code_size_test", strata::testing::cuda_target());
    } catch (const StoreCount &count) {
        return count.stores;
    }
    FAIL("lowering did not reach the custom pass");
    return -1;
}

}  // namespace

TEST_CASE("no budget, no kernel changed") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    Schedule s = own_kernels(dag, 4);
    CHECK_FALSE(shrink_code_within(s, [](const Schedule &) { return 1.0; }, 0).any());
    CHECK(unpartitioned(s) == 0);
    CHECK(shifted(s) == 0);
}

TEST_CASE("kernels are unpartitioned, the most unrolled work first, while the price stays within the budget") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    // Each unpartitioned kernel costs 0.6%, each shifted one or halving 5%
    // (beyond any budget here): a 1% budget takes one unpartitioned kernel.
    auto price = [](const Schedule &s) {
        return 1.0 + 0.006 * unpartitioned(s) + 0.05 * (shifted(s) + halvings(s));
    };
    Schedule one = own_kernels(dag, 4);
    CodeSizeChanges made = shrink_code_within(one, price, 0.01);
    CHECK(made.unpartitioned == 1);
    CHECK(made.shifted == 0);
    CHECK_FALSE(one.choice(id_of(dag, "heavy")).stages[0].tiling.partitioned);
    CHECK(one.choice(id_of(dag, "light")).stages[0].tiling.partitioned);
    // out unrolls nothing: it has no border copies to save.
    CHECK(one.choice(id_of(dag, "out")).stages[0].tiling.partitioned);
    Schedule both = own_kernels(dag, 4);
    CHECK(shrink_code_within(both, price, 0.02).unpartitioned == 2);
    CHECK(price(both) <= 1.02);
    // Without unrolled points nothing is tried.
    Schedule none = own_kernels(dag, 1);
    CHECK_FALSE(shrink_code_within(none, price, 1.0).any());
}

TEST_CASE("a kernel's tails are shifted where the price allows, before it is unpartitioned") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    // Shifted 0.4% a kernel, unpartitioned 0.6%, a halving 5%.
    auto price = [](const Schedule &s) {
        return 1.0 + 0.004 * shifted(s) + 0.006 * unpartitioned(s) + 0.05 * halvings(s);
    };
    Schedule both = own_kernels(dag, 4);
    CodeSizeChanges made = shrink_code_within(both, price, 0.01);
    CHECK(made.shifted == 2);
    CHECK(made.unpartitioned == 0);
    // With 0.5%, heavy (the more unrolled work) is shifted; light fits neither way.
    Schedule one = own_kernels(dag, 4);
    made = shrink_code_within(one, price, 0.005);
    CHECK(made.shifted == 1);
    CHECK(made.unpartitioned == 0);
    CHECK(is_shifted(one.choice(id_of(dag, "heavy")).stages[0].tiling));
    CHECK_FALSE(is_shifted(one.choice(id_of(dag, "light")).stages[0].tiling));
    CHECK(one.choice(id_of(dag, "light")).stages[0].tiling.partitioned);
}

TEST_CASE("a kernel unrolls fewer points, halving after halving, while the price stays within the budget") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    // A halving costs 0.3%; shifting and unpartitioning 5%. With 1%: heavy
    // (the more unrolled work) goes 4 -> 2 -> 1, light 4 -> 2; a fourth
    // halving would cost 1.2%.
    auto price = [](const Schedule &s) {
        return 1.0 + 0.003 * halvings(s) + 0.05 * (shifted(s) + unpartitioned(s));
    };
    Schedule s = own_kernels(dag, 4);
    const CodeSizeChanges made = shrink_code_within(s, price, 0.01);
    CHECK(made.fewer_unrolled == 2);
    CHECK(made.shifted == 0);
    CHECK(made.unpartitioned == 0);
    CHECK(s.choice(id_of(dag, "heavy")).stages[0].tiling.serial_per_thread() == 1);
    CHECK(s.choice(id_of(dag, "light")).stages[0].tiling.serial_per_thread() == 2);
    // The threads stay; the blocks cover what the threads gave up.
    CHECK(s.choice(id_of(dag, "light")).stages[0].tiling.threads_per_block() == 32);
    CHECK_FALSE(with_half_the_serial_points(GpuTiling::uniform({1000, 1000}, {32, 1}, {1, 1})));
}

TEST_CASE("tails are shifted on a pure definition's loops at least a tile long, where the Func may start early") {
    // f reads `in` through a boundary condition, g reads it as it is: on a
    // run shorter than g's tile, a shifted g would read `in` before its start.
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func f{"f"}, g{"g"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    Halide::RDom r(0, 3);
    Halide::Func edge = Halide::BoundaryConditions::repeat_edge(in);
    f(x, y) = edge(x, y);
    f(x, y) += edge(x + r, y);
    g(x, y) = in(x, y) * 3;
    out(x, y) = f(x, y) * 2 + g(x, y);
    in.set_estimates({{0, 1010}, {0, 20}});
    out.set_estimates({{0, 1000}, {0, 20}});
    FunctionDAG dag({out});
    // 64-point tiles along x (1000 long), 32 along y (20 long).
    const GpuTiling tiling = GpuTiling::uniform({1000, 20}, {32, 8}, {2, 4}, true);
    const Node &fn = *dag.nodes()[id_of(dag, "f")];
    const GpuTiling pure = with_shifted_tails(dag, fn, *fn.stages[0], tiling);
    CHECK(pure.dims[0].tail == TileTail::ShiftedInwards);
    CHECK(pure.dims[1].tail == TileTail::Guarded);
    // y's checks remain: Halide still partitions on them.
    CHECK(pure.partitioned);
    // An update may not recompute points: f += would add twice.
    CHECK(with_shifted_tails(dag, fn, *fn.stages[1], tiling) == tiling);
    const Node &gn = *dag.nodes()[id_of(dag, "g")];
    CHECK(with_shifted_tails(dag, gn, *gn.stages[0], tiling) == tiling);
    const Node &output = *dag.nodes()[id_of(dag, "out")];
    CHECK(with_shifted_tails(dag, output, *output.stages[0], tiling) == tiling);
}

TEST_CASE("an unpartitioned or shifted kernel lowers to fewer copies of its unrolled points") {
    // heavy: 4 points along y per thread, 1000 not known to Halide to divide
    // by 4 or 32. Partitioned, an interior copy and border copies (x's
    // border, y's) each store 4 points; unpartitioned, one checked copy
    // does; shifted, nothing is checked and Halide keeps two copies: the
    // interior and the blocks whose tile start along x (the thread loop,
    // innermost once the points are unrolled) is clamped.
    enum class Tail { Partitioned, Unpartitioned, Shifted };
    for (Tail tail : {Tail::Partitioned, Tail::Unpartitioned, Tail::Shifted}) {
        ThreeKernels p;
        FunctionDAG dag({p.out});
        Schedule s = own_kernels(dag, 4);
        const Node &heavy_node = *dag.nodes()[id_of(dag, "heavy")];
        FuncChoice heavy = s.choice(heavy_node.id);
        GpuTiling &tiling = heavy.stages[0].tiling;
        if (tail == Tail::Unpartitioned) tiling.partitioned = false;
        if (tail == Tail::Shifted) tiling = with_shifted_tails(dag, heavy_node, *heavy_node.stages[0], tiling);
        s.set(heavy_node.id, std::move(heavy));
        ScheduleWriter writer(dag, s, a100());
        writer.apply();
        std::map<std::string, int> index;
        for (const Node *node : dag.funcs()) index[node->name] = int(index.size());
        const std::string source = writer.source(index);
        INFO(source);
        CHECK((source.find("::Halide::Partition::Never") != std::string::npos) == (tail == Tail::Unpartitioned));
        CHECK((source.find("TailStrategy::ShiftInwards") != std::string::npos) == (tail == Tail::Shifted));
        const int stores = lowered_stores(p.out, p.heavy.name());
        INFO("tail: " << int(tail));
        switch (tail) {
        case Tail::Partitioned: CHECK(stores == 12); break;
        case Tail::Unpartitioned: CHECK(stores == 4); break;
        case Tail::Shifted: CHECK(stores == 8); break;
        }
    }
}

namespace {

// in, read through a boundary condition → fine(x, y) → up(x, y), which
// reads fine through `halvings` levels inlined between them, each reading
// the one before at (x / 2, y / 2) and one sample beside it (an upsample
// by 2^halvings, as interpolate's levels are) → out.
struct Upsample {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func fine{"fine"}, up{"up"}, out{"out"};
    std::vector<Halide::Func> levels;
    Halide::Var x{"x"}, y{"y"};
    explicit Upsample(int halvings) {
        Halide::Func edge = Halide::BoundaryConditions::repeat_edge(in);
        fine(x, y) = edge(x, y) * 2;
        Halide::Func coarser = fine;
        for (int k = 1; k < halvings; ++k) {
            Halide::Func level("level" + std::to_string(k));
            level(x, y) = coarser(x / 2, y / 2) + coarser(x / 2 + 1, y / 2);
            levels.push_back(level);
            coarser = level;
        }
        up(x, y) = coarser(x / 2, y / 2) * 3;
        out(x, y) = up(x, y) + up(x + 1, y);
        in.set_estimates({{0, 260}, {0, 260}});
        out.set_estimates({{0, 1000}, {0, 1000}});
    }
};

// `fine` computed per block of `up` (tiles of 64 × 8, guarded: 1001 is not
// a multiple of 64), the levels inlined, `out` its own kernel.
Schedule fine_per_block(const FunctionDAG &dag, const Upsample &p) {
    Schedule s(dag);
    StageChoice c;
    c.tiling = GpuTiling::uniform({1001, 1000}, {32, 8}, {2, 1}, true);
    const int up = id_of(dag, "up");
    s.set(up, FuncChoice::root({c}));
    for (const Halide::Func &level : p.levels) s.set(id_of(dag, level.name()), FuncChoice::inlined());
    s.set(id_of(dag, "fine"), FuncChoice::at(Placement::Block, up, 0));
    complete_with_defaults(s, a100());
    return s;
}

std::optional<std::string> written_and_lowered(const Upsample &p, const FunctionDAG &dag, const Schedule &s) {
    ScheduleWriter writer(dag, s, a100());
    writer.apply();
    return lowering_error({p.out}, strata::testing::cuda_target());
}

}  // namespace

TEST_CASE("a member read through a division gets its kernel's tails shifted, and Halide proves its bound") {
    {
        // Guarded, fine's per-block extent is a difference of quotients of
        // a min(): Halide leaves its storage bound to a check in the kernel.
        Upsample p(2);
        FunctionDAG dag({p.out});
        const Schedule s = fine_per_block(dag, p);
        CHECK(divided_guarded_loops(dag, s, id_of(dag, "fine")) == std::vector<size_t>{0, 1});
        const std::optional<std::string> error = written_and_lowered(p, dag, s);
        REQUIRE(error.has_value());
        CHECK(funcs_named_in(*error, {p.fine.name()}) == std::set<std::string>{p.fine.name()});
    }
    {
        // Shifted, the extent is constant and Halide proves it.
        Upsample p(2);
        FunctionDAG dag({p.out});
        Schedule s = fine_per_block(dag, p);
        CHECK(shift_tails_under_divisions(s) == 1);
        const GpuTiling &tiling = s.choice(id_of(dag, "up")).stages[0].tiling;
        CHECK(tiling.dims[0].tail == TileTail::ShiftedInwards);
        CHECK(tiling.dims[1].tail == TileTail::ShiftedInwards);
        CHECK(divided_guarded_loops(dag, s, id_of(dag, "fine")).empty());
        CHECK_FALSE(written_and_lowered(p, dag, s).has_value());
    }
    {
        // Whole tiles are not always enough for Halide: read at x / 2 with
        // no level between, it still leaves the check in the kernel (so
        // does it at x / 8, and proves x / 16). The extent is then a
        // difference of quotients of the tile's base, which the probe
        // proves at every residue of the base (ResidueProof).
        Upsample p(1);
        FunctionDAG dag({p.out});
        Schedule s = fine_per_block(dag, p);
        CHECK(shift_tails_under_divisions(s) == 1);
        const std::optional<std::string> error = written_and_lowered(p, dag, s);
        CHECK_MESSAGE(!error.has_value(), error.value_or(""));
    }
}
