// InlinedFolds: what Halide's simplifier takes out of a stage once the Funcs
// a kernel inlines into it are substituted.
//
// Which of a stage's loads Halide keeps depends on the schedule: inlined,
// a Func's definition meets its caller's and the simplifier may fold them
// together. `(a + a) % 4` read through an inlined `a` may fold to a
// constant and load nothing; a gather clamped to a one-element table reads
// its index from nowhere; an update `f(x) += w * g(x)` with `g` inlined as
// `h(x) - h(x)` becomes `f(x) = f(x)`, a store of what it loaded, which
// Halide drops (with the whole kernel, when the update is one). The
// FunctionDAG folds each definition on its own, once; this folds a stage
// with a given set of inlined Funcs, once per set (a search meets few sets
// per stage), and answers from a cache that threads share.
//
// Example:
//   InlinedFolds folds(dag);                     // beside the DAG (the Featurizer's)
//   const StageFolds &f = folds.of(stage, inlined_closure(stage, roles));
//   if (f.no_op) return KernelFeatures{};        // Halide builds no kernel for it
//   if (f.unread.count(leaf.callee->id)) skip(leaf);
#pragma once

#include "FunctionDAG.h"
#include "KernelGeometry.h"

#include <cstdint>
#include <set>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace strata::autoscheduler {

struct StageFolds {
    // The stage stores back, at every point, the value it loads there of
    // its own Func (an update folded to `f(x) = f(x)`): Halide drops it.
    bool no_op = false;
    // Node ids of Funcs and inputs the stage reads through its inlined Funcs
    // and no call of which survives the simplifier.
    std::set<int> unread;
};

// The ids of the Funcs inlined into `s` under `roles`, directly or through
// other inlined Funcs, ascending; `kernel` (the kernel's own Func) is never
// one, though a stage of it may read it.
std::vector<int> inlined_closure(const Stage &s, const NodeMap<Role> &roles, int kernel);

class InlinedFolds {
public:
    explicit InlinedFolds(const FunctionDAG &dag) : dag_(dag) {}

    // `inlined`: inlined_closure() of `s` in the kernel at hand. Without
    // inlined Funcs and for a pure definition nothing folds that the
    // FunctionDAG did not fold already: answered without the simplifier.
    const StageFolds &of(const Stage &s, const std::vector<int> &inlined);

private:
    StageFolds fold(const Stage &s, const std::vector<int> &inlined) const;

    const FunctionDAG &dag_;
    std::shared_mutex mutex_;
    std::unordered_map<uint64_t, StageFolds> folds_;
};

}  // namespace strata::autoscheduler
