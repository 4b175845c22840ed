// CodeSize: which kernels unpartition_within() gives one checked copy of
// their code, against a price that charges each one a known amount; and
// that Halide, given what the writer emits for such a kernel, lowers one
// copy of its unrolled points instead of an interior and borders.
#include "CodeSize.h"
#include "ScheduleWriter.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

#include <map>

using namespace strata::autoscheduler;
using strata::testing::id_of;

namespace {

const strata::costmodel::GpuSpec &a100() { return strata::costmodel::GpuSpec::by_name("a100"); }

// in → light (one load per point) and heavy (five loads and their sums) →
// out, each of the three its own kernel, 2-D.
struct ThreeKernels {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func light{"light"}, heavy{"heavy"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    ThreeKernels() {
        light(x, y) = in(x, y) * 2;
        heavy(x, y) = in(x, y) + in(x + 1, y) + in(x, y + 1) + in(x + 1, y + 1) + in(x + 2, y + 2);
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

int unpartitioned(const Schedule &s) {
    int n = 0;
    for (const Node *node : s.dag().funcs()) n += !s.choice(node->id).stages[0].tiling.partitioned;
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

TEST_CASE("no budget, no kernel unpartitioned") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    Schedule s = own_kernels(dag, 4);
    CHECK(unpartition_within(s, [](const Schedule &) { return 1.0; }, 0) == 0);
    CHECK(unpartitioned(s) == 0);
}

TEST_CASE("kernels are unpartitioned, the most unrolled work first, while the price stays within the budget") {
    ThreeKernels p;
    FunctionDAG dag({p.out});
    // Each unpartitioned kernel costs 0.6%: a 1% budget takes one.
    auto price = [](const Schedule &s) { return 1.0 + 0.006 * unpartitioned(s); };
    Schedule one = own_kernels(dag, 4);
    CHECK(unpartition_within(one, price, 0.01) == 1);
    CHECK_FALSE(one.choice(id_of(dag, "heavy")).stages[0].tiling.partitioned);
    CHECK(one.choice(id_of(dag, "light")).stages[0].tiling.partitioned);
    // out unrolls nothing: it has no border copies to save.
    CHECK(one.choice(id_of(dag, "out")).stages[0].tiling.partitioned);
    Schedule both = own_kernels(dag, 4);
    CHECK(unpartition_within(both, price, 0.02) == 2);
    CHECK(price(both) <= 1.02);
    // Without unrolled points nothing is tried.
    Schedule none = own_kernels(dag, 1);
    CHECK(unpartition_within(none, price, 1.0) == 0);
}

TEST_CASE("an unpartitioned kernel lowers to one checked copy of its unrolled points") {
    // heavy: 4 points along y per thread, 1000 not known to Halide to divide:
    // partitioned, the interior copy and the border copies each store 4
    // points; unpartitioned, one copy does.
    for (bool partitioned : {true, false}) {
        ThreeKernels p;
        FunctionDAG dag({p.out});
        Schedule s = own_kernels(dag, 4);
        FuncChoice heavy = s.choice(id_of(dag, "heavy"));
        heavy.stages[0].tiling.partitioned = partitioned;
        s.set(id_of(dag, "heavy"), std::move(heavy));
        ScheduleWriter writer(dag, s, a100());
        writer.apply();
        std::map<std::string, int> index;
        for (const Node *node : dag.funcs()) index[node->name] = int(index.size());
        const std::string source = writer.source(index);
        INFO(source);
        CHECK((source.find("::Halide::Partition::Never") != std::string::npos) == !partitioned);
        const int stores = lowered_stores(p.out, p.heavy.name());
        INFO("partitioned: " << partitioned);
        if (partitioned) CHECK(stores > 4);
        else CHECK(stores == 4);
    }
}
