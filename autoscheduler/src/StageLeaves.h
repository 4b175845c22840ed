// StageLeaves: the loads a stage finally performs once a kernel's inlined
// Funcs are substituted into it, each a chain of accesses through inlined
// Funcs into a stored Func (LeafAccess), composed once per stage and set of
// inlined Funcs and shared by a search's kernel analyses.
//
// A search analyses thousands of kernels, and most of them inline the same
// Funcs into the same stages, whatever their tilings and members: composing
// the chains, their index texts (IndexTexts) and merging the leaves that
// load one element, once per kernel, was a tenth of local_laplacian's
// search. A stage's leaves depend on the stage, the tuple elements read of
// it, the Funcs inlined into it (inlined_closure()) and whether it is
// inlined itself: a stage the kernel computes loses the loads its inlined
// Funcs fold away (InlinedFolds), an inlined one keeps them for its reader.
//
// Example:
//   InlinedFolds folds(dag);
//   StageLeaves leaves(folds);                  // beside the DAG (the Featurizer's)
//   for (const LeafAccess &leaf : leaves.of(stage, kAllValues, scope.role, scope.func)) price(leaf);
#pragma once

#include "FunctionDAG.h"
#include "InlinedFolds.h"
#include "KernelWarps.h"
#include "NodeMap.h"

#include <array>
#include <cstdint>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace strata::autoscheduler {

class StageLeaves {
public:
    explicit StageLeaves(InlinedFolds &folds) : folds_(folds) {}

    // The leaf loads of the values of `s` in `values` (a bit per tuple
    // element; an inlined Func: the elements its reader reads) in a kernel
    // of Func `kernel` whose Funcs have `roles`. The reference lasts as long
    // as this object. Safe to call from several threads at once.
    const std::vector<LeafAccess> &of(const Stage &s, uint64_t values, const NodeMap<Role> &roles, int kernel);

private:
    struct Key {
        const Stage *stage;
        uint64_t values;
        bool inlined;               // `stage`'s Func is inlined into its reader
        std::vector<int> closure;   // inlined_closure() of `stage`
        bool operator==(const Key &o) const {
            return stage == o.stage && values == o.values && inlined == o.inlined && closure == o.closure;
        }
    };
    struct KeyHash {
        size_t operator()(const Key &k) const;
    };

    std::vector<LeafAccess> compose(const Key &key, const NodeMap<Role> &roles, int kernel);

    InlinedFolds &folds_;
    IndexTexts texts_;
    // Sharded by the key's hash: every worker of a beam step looks leaves up
    // once per stage of every kernel it analyses, and one lock's cache line
    // passed between the cores would cost more than the lookups.
    static constexpr size_t kShards = 64;
    struct alignas(64) Shard {
        std::shared_mutex mutex;
        std::unordered_map<Key, std::vector<LeafAccess>, KeyHash> leaves;
    };
    std::array<Shard, kShards> shards_;
};

}  // namespace strata::autoscheduler
