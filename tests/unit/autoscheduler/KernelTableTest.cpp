// KernelTable: the kernels a one-Func change recomposes are exactly those
// whose keys differ from the parent's, and a candidate's incremental price
// is the from-scratch price of the whole candidate, bit for bit.
#include "ExactSum.h"
#include "KernelTable.h"

#include <doctest/doctest.h>

#include <unordered_map>

using namespace strata::autoscheduler;
using strata::costmodel::GpuSpec;

namespace {

// in → a → b (3 taps) → sum over rows of b, and d (reads a and b) → out.
struct Diamond {
    Halide::ImageParam in{Halide::Float(32), 2, "in"};
    Halide::Func a{"a"}, b{"b"}, sum{"sum"}, d{"d"}, out{"out"};
    Halide::Var x{"x"}, y{"y"};
    Halide::RDom r{0, 64, "r"};
    Diamond() {
        a(x, y) = in(x, y) * 2.0f;
        b(x, y) = a(x - 1, y) + a(x, y) + a(x + 1, y);
        sum(x) = 0.0f;
        sum(x) += b(x, r);
        d(x, y) = a(x, y) * b(x, y);
        out(x, y) = d(x, y) + sum(x);
        in.set_estimates({{-1, 514}, {0, 512}});
        out.set_estimates({{0, 512}, {0, 512}});
    }
};

// A made-up price per kernel key: any map from keys to seconds will do.
double seconds_of(uint64_t key) { return double(key % 9973 + 1) * 1e-7; }

// The kernels' keys of a whole schedule, by slot, walked from scratch.
std::vector<uint64_t> keys_from_scratch(const KernelSlots &slots, Featurizer &featurizer, const Schedule &s) {
    std::vector<uint64_t> keys(slots.count(), 0);
    for (int slot = 0; slot < slots.count(); ++slot) {
        const auto [func, stage] = slots.owner(slot);
        if (s.choice(func).placement == Placement::Root) featurizer.kernel(s, func, stage, &keys[slot]);
    }
    return keys;
}

// Every choice a search step could give `node` in `state` (`state` has it
// decided: the placement checks look at its consumers only).
std::vector<std::shared_ptr<const FuncChoice>> choices_for(const Schedule &state, const Node &node,
                                                           const GpuSpec &spec) {
    std::vector<std::shared_ptr<const FuncChoice>> out;
    auto add = [&](FuncChoice c) { out.push_back(std::make_shared<const FuncChoice>(std::move(c))); };
    if (state.can_place(node.id, Placement::Inline)) add(FuncChoice::inlined());
    add(default_choice(node, spec, /*inline_cheap=*/false));
    for (const KernelSite &site : state.consumer_sites(node.id)) {
        for (Placement p : {Placement::Block, Placement::Thread}) {
            if (state.can_place(node.id, p, site.func, site.stage)) add(FuncChoice::at(p, site.func, site.stage));
        }
    }
    return out;
}

// The diamond's DAG with a featurizer and its slots.
struct DiamondTables {
    Diamond p;
    FunctionDAG dag{{p.out}};
    const GpuSpec &spec = GpuSpec::by_name("a100");
    Featurizer featurizer{dag, spec};
    KernelSlots slots{dag};
};

}  // namespace

TEST_CASE_FIXTURE(DiamondTables, "recompose() changes exactly the kernels whose keys differ, and prices them as a whole schedule does") {

    // Two parents: the default completion, and every Func in its own kernel.
    Schedule defaults(dag), kernels(dag);
    complete_with_defaults(defaults, spec);
    complete_with_kernels(kernels, spec);
    int candidates = 0, recomposed = 0, members = 0;
    for (Schedule *parent : {&defaults, &kernels}) {
        KernelTable table(slots, featurizer, *parent);
        CHECK(table.keys() == keys_from_scratch(slots, featurizer, *parent));
        std::unordered_map<uint64_t, double> seconds;
        for (uint64_t key : table.keys()) seconds[key] = seconds_of(key);
        table.set_prices(seconds);
        const uint64_t parent_hash = parent->hash();

        for (const Node *node : dag.funcs()) {
            if (node->is_output) continue;
            for (const auto &choice : choices_for(*parent, *node, spec)) {
                INFO(node->name << " placed " << int(choice->placement));
                const std::vector<RecomposedKernel> changes = table.recompose(*parent, node->id, choice);
                CHECK(parent->hash() == parent_hash);

                Schedule child = *parent;
                child.set(node->id, choice);
                std::vector<uint64_t> expected = keys_from_scratch(slots, featurizer, child);
                std::vector<uint64_t> incremental = table.keys();
                for (const RecomposedKernel &c : changes) {
                    CHECK(c.key != table.key(c.slot));  // only real changes are listed
                    incremental[c.slot] = c.key;
                }
                CHECK(incremental == expected);

                ExactSum whole;
                for (uint64_t key : expected) {
                    if (key) whole += seconds_of(key);
                    seconds[key] = seconds_of(key);
                }
                CHECK(table.price(changes, seconds) == whole.seconds());  // bit for bit: the same exact sum
                ++candidates;
                recomposed += int(changes.size());
                members += choice->placement == Placement::Block || choice->placement == Placement::Thread;
            }
        }
    }
    // The cases reach members and inlining, not just roots.
    CHECK(candidates >= 12);
    CHECK(members > 0);
    CHECK(recomposed > 0);
}

TEST_CASE_FIXTURE(DiamondTables, "a candidate with an illegal kernel is priced as infinitely slow") {
    Schedule parent(dag);
    complete_with_kernels(parent, spec);
    KernelTable table(slots, featurizer, parent);
    std::unordered_map<uint64_t, double> seconds;
    for (uint64_t key : table.keys()) seconds[key] = 1e-6;
    table.set_prices(seconds);
    const Node &b = *dag.node(p.b.name());
    RecomposedKernel illegal{slots.slot(b.id, 0), 12345, /*legal=*/false};
    seconds[illegal.key] = 1e-6;
    CHECK(std::isinf(table.price({illegal}, seconds)));
    CHECK(std::isfinite(table.price({}, seconds)));
}
