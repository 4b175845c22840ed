// KernelTable: the kernels of one complete schedule, slot by slot, and the
// few kernels that deciding one more Func can recompose — what makes the
// price of a search candidate independent of the pipeline's size.
//
// A beam step prices every way to decide one Func. Each candidate, completed
// with default choices, differs from its parent (the beam state completed
// the same way) in that one Func's choice. A kernel's composition (its key,
// Featurizer::kernel_key) follows from the Funcs its scope walk examines:
// the producers of its own stage and of every member's stages. So a change
// of Func F's choice recomposes only the kernels that examine F, and F's own
// kernels if it is or becomes Root; every other kernel keeps its key and its
// price. The kernels that examine F are found by walking up from F's
// consumers (a Root consumer's stage is a kernel; an inlined one passes on
// to whatever examines it; a member, to its kernel if that examines it), so
// the table itself is only flat arrays by slot (one slot per stage of every
// Func, in the order a whole-schedule price sums): key, price, legality.
// The chosen candidate's table is its parent's with the changes applied.
//
// A candidate's price is then the table's total with its few recomposed
// slots swapped. Totals are exact sums (ExactSum.h), so that is the same
// number, bit for bit, as pricing the whole candidate from scratch, at a
// cost that does not grow with the pipeline.
//
// Example:
//   KernelSlots slots(dag);
//   KernelTable table(slots, featurizer, parent);          // parent: complete
//   auto changes = table.recompose(parent, func, choice);  // restores parent
//   // or, analysing a step's new kernels together:
//   //   auto changes = table.recompose(parent, func, choice, &pending);
//   //   featurizer.analyze_pending(pending, pool);
//   //   table.settle(changes);
//   table.set_prices(kernel_costs);  // once every key has a price
//   double seconds = table.price(changes, kernel_costs);
//   KernelTable child = table.with(changes, kernel_costs);
#pragma once

#include "CowVector.h"
#include "ExactSum.h"
#include "Featurizer.h"
#include "FunctionDAG.h"
#include "Schedule.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace strata::autoscheduler {

// One slot per stage of every Func, in dag.funcs() order then stage order.
class KernelSlots {
public:
    explicit KernelSlots(const FunctionDAG &dag);
    int count() const { return int(owner_.size()); }
    int slot(int func, int stage) const { return first_[func] + stage; }
    // The (Func, stage) a slot stands for.
    std::pair<int, int> owner(int slot) const { return owner_[slot]; }

private:
    std::vector<int> first_;  // by node id; -1 for input buffers
    std::vector<std::pair<int, int>> owner_;
};

// A kernel of a candidate that differs from its parent's: key 0 when the
// slot holds no kernel in the candidate (its Func is no longer Root).
struct RecomposedKernel {
    int slot = 0;
    uint64_t key = 0;
    bool legal = true;
};

class KernelTable {
public:
    KernelTable(const KernelSlots &slots, Featurizer &featurizer, const Schedule &complete);

    // The kernels that differ once `func` takes `choice` in `complete` (the
    // schedule this table was built from), by ascending slot. `complete` is
    // changed while they are featurized and restored before returning.
    // With `pending`, kernels not featurized yet are queued there instead
    // (Featurizer::kernel_or_queue) and their changes say legal until
    // settle() reads the analyses; tables may then recompose on several
    // threads at once, each with its own `complete` and `pending`.
    std::vector<RecomposedKernel> recompose(Schedule &complete, int func,
                                            const std::shared_ptr<const FuncChoice> &choice,
                                            PendingKernels *pending = nullptr) const;
    // Sets each change's legality from its kernel's features, once the
    // kernels recompose() queued have been analysed.
    void settle(std::vector<RecomposedKernel> &changes) const;

    // The keys of the parent's kernels (0: no kernel in that slot).
    uint64_t key(int slot) const { return keys_[slot]; }
    std::vector<uint64_t> keys() const { return keys_.to_vector(); }
    int kernels() const { return kernels_; }
    // Reads each kernel's price; every key of the table must have one.
    void set_prices(const std::unordered_map<uint64_t, double> &seconds);
    // The price of the candidate that differs by `changes` (prices of the
    // recomposed keys from `seconds`); infinity if any kernel is illegal.
    double price(const std::vector<RecomposedKernel> &changes,
                 const std::unordered_map<uint64_t, double> &seconds) const;
    // The table of that candidate (its kernels priced in `seconds`).
    KernelTable with(const std::vector<RecomposedKernel> &changes,
                     const std::unordered_map<uint64_t, double> &seconds) const;

private:
    // The slots of the kernels of `complete` whose walk examines `func`
    // (ascending), memoized per Func for one walk up the consumers.
    using Examiners = std::unordered_map<int, std::vector<int>>;
    const std::vector<int> &examiners(const Schedule &complete, int func, Examiners &memo) const;

    const KernelSlots *slots_;
    Featurizer *featurizer_;
    // By slot. Copies share storage (CowVector): a kept beam child's table
    // is its parent's with a few slots changed.
    CowVector<uint64_t> keys_;
    CowVector<char> legal_;
    CowVector<double> seconds_;
    ExactSum total_;  // of seconds_
    int kernels_ = 0;
    int illegal_ = 0;
};

}  // namespace strata::autoscheduler
