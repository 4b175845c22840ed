//===- KernelTable.cpp - a complete schedule's kernels, recomposed by one Func -===//
//
// Builds the slot table of a complete schedule (one scope walk per kernel)
// and, for a candidate that changes one Func, re-walks only the kernels
// that examined that Func and the Func's own stages.
//
//===----------------------------------------------------------------------===//
#include "KernelTable.h"

#include <algorithm>
#include <limits>

namespace strata::autoscheduler {

KernelSlots::KernelSlots(const FunctionDAG &dag) : first_(dag.nodes().size(), -1) {
    for (const Node *node : dag.funcs()) {
        first_[node->id] = int(owner_.size());
        for (const auto &st : node->stages) owner_.emplace_back(node->id, st->index);
    }
}

KernelTable::KernelTable(const KernelSlots &slots, Featurizer &featurizer, const Schedule &complete)
    : slots_(slots), featurizer_(featurizer), keys_(slots.count(), 0), legal_(slots.count(), 1),
      seconds_(slots.count(), 0.0), examiners_(complete.dag().nodes().size()) {
    const FunctionDAG &dag = complete.dag();
    for (int slot = 0; slot < slots.count(); ++slot) {
        const auto [func, stage] = slots.owner(slot);
        if (complete.choice(func).placement != Placement::Root) continue;
        const KernelScope scope = KernelScope::collect(dag, complete, func, stage);
        const KernelFeatures &kernel = featurizer_.kernel(complete, scope, &keys_[slot]);
        legal_[slot] = kernel.legal;
        illegal_ += kernel.legal ? 0 : 1;
        ++kernels_;
        // The walk examines the producers of the kernel's stage and of every
        // stage of its members: a change to any of them may recompose it.
        auto examined_by = [&](const Stage &st) {
            for (const Edge *e : st.producers) {
                std::vector<int> &list = examiners_[e->producer->id];
                if (list.empty() || list.back() != slot) list.push_back(slot);
            }
        };
        examined_by(*dag.nodes()[func]->stages[stage]);
        for (int member : scope.members) {
            for (const auto &st : dag.nodes()[member]->stages) examined_by(*st);
        }
    }
}

std::vector<RecomposedKernel> KernelTable::recompose(Schedule &complete, int func,
                                                     const std::shared_ptr<const FuncChoice> &choice) const {
    const std::shared_ptr<const FuncChoice> parent = complete.shared_choice(func);
    complete.set(func, choice);
    std::vector<int> touched = examiners_[func];
    const Node &node = *complete.dag().nodes()[func];
    for (const auto &st : node.stages) touched.push_back(slots_.slot(func, st->index));
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());

    std::vector<RecomposedKernel> changes;
    for (int slot : touched) {
        const auto [owner, stage] = slots_.owner(slot);
        RecomposedKernel change{slot, 0, true};
        if (complete.choice(owner).placement == Placement::Root) {
            const KernelFeatures &kernel = featurizer_.kernel(complete, owner, stage, &change.key);
            change.legal = kernel.legal;
        }
        if (change.key != keys_[slot]) changes.push_back(change);
    }
    complete.set(func, parent);
    return changes;
}

void KernelTable::set_prices(const std::unordered_map<uint64_t, double> &seconds) {
    for (size_t slot = 0; slot < keys_.size(); ++slot) seconds_[slot] = keys_[slot] ? seconds.at(keys_[slot]) : 0.0;
}

double KernelTable::price(const std::vector<RecomposedKernel> &changes,
                          const std::unordered_map<uint64_t, double> &seconds) const {
    int illegal = illegal_;
    for (const RecomposedKernel &c : changes) {
        if (keys_[c.slot] && !legal_[c.slot]) --illegal;
        if (c.key && !c.legal) ++illegal;
    }
    if (illegal > 0) return std::numeric_limits<double>::infinity();
    // In slot order, as a whole-schedule price sums: the same rounding.
    double total = 0;
    auto next = changes.begin();
    for (size_t slot = 0; slot < keys_.size(); ++slot) {
        if (next != changes.end() && next->slot == int(slot)) {
            if (next->key) total += seconds.at(next->key);
            ++next;
        } else {
            total += seconds_[slot];
        }
    }
    return total;
}

}  // namespace strata::autoscheduler
