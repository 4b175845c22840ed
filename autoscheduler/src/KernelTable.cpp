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
    : slots_(&slots), featurizer_(&featurizer), keys_(slots.count(), 0), legal_(slots.count(), 1),
      seconds_(slots.count(), 0.0) {
    for (int slot = 0; slot < slots.count(); ++slot) {
        const auto [func, stage] = slots.owner(slot);
        if (complete.choice(func).placement != Placement::Root) continue;
        uint64_t key = 0;
        const KernelFeatures &kernel = featurizer.kernel(complete, func, stage, &key);
        keys_.set(slot, key);
        legal_.set(slot, kernel.legal);
        illegal_ += kernel.legal ? 0 : 1;
        ++kernels_;
    }
}

const std::vector<int> &KernelTable::examiners(const Schedule &complete, int func, Examiners &memo) const {
    if (auto known = memo.find(func); known != memo.end()) return known->second;
    std::vector<int> out;
    for (const Edge *e : complete.dag().nodes()[func]->consumers) {
        const Stage &consumer = *e->consumer;
        const int c = consumer.node->id;
        const FuncChoice &choice = complete.choice(c);
        if (choice.placement == Placement::Root) {
            // A kernel walks its own stage's producers.
            out.push_back(slots_->slot(c, consumer.index));
            continue;
        }
        // Inlined: into every kernel that examines it, all its stages walked.
        // A member: into its one kernel, if that kernel examines it.
        const std::vector<int> &through = examiners(complete, c, memo);
        if (choice.placement == Placement::Inline) {
            out.insert(out.end(), through.begin(), through.end());
        } else {
            const int kernel = slots_->slot(choice.kernel_func, choice.kernel_stage);
            if (std::find(through.begin(), through.end(), kernel) != through.end()) out.push_back(kernel);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return memo[func] = std::move(out);
}

std::vector<RecomposedKernel> KernelTable::recompose(Schedule &complete, int func,
                                                     const std::shared_ptr<const FuncChoice> &choice,
                                                     PendingKernels *pending) const {
    Examiners memo;
    std::vector<int> touched = examiners(complete, func, memo);
    const Node &node = *complete.dag().nodes()[func];
    for (const auto &st : node.stages) touched.push_back(slots_->slot(func, st->index));
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());

    const std::shared_ptr<const FuncChoice> parent = complete.shared_choice(func);
    complete.set(func, choice);
    std::vector<RecomposedKernel> changes;
    for (int slot : touched) {
        const auto [owner, stage] = slots_->owner(slot);
        RecomposedKernel change{slot, 0, true};
        if (complete.choice(owner).placement == Placement::Root) {
            if (pending) {
                const KernelFeatures *known =
                    featurizer_->kernel_or_queue(complete, owner, stage, change.key, *pending);
                change.legal = !known || known->legal;
            } else {
                change.legal = featurizer_->kernel(complete, owner, stage, &change.key).legal;
            }
        }
        if (change.key != keys_[slot]) changes.push_back(change);
    }
    complete.set(func, parent);
    return changes;
}

void KernelTable::settle(std::vector<RecomposedKernel> &changes) const {
    for (RecomposedKernel &c : changes) {
        if (c.key) c.legal = featurizer_->cached(c.key)->legal;
    }
}

KernelTable KernelTable::with(const std::vector<RecomposedKernel> &changes,
                              const std::unordered_map<uint64_t, double> &seconds) const {
    KernelTable child = *this;
    for (const RecomposedKernel &c : changes) {
        if (keys_[c.slot]) {
            --child.kernels_;
            child.illegal_ -= legal_[c.slot] ? 0 : 1;
        }
        child.keys_.set(c.slot, c.key);
        child.legal_.set(c.slot, c.legal);
        child.total_ -= child.seconds_[c.slot];
        child.seconds_.set(c.slot, c.key ? seconds.at(c.key) : 0.0);
        child.total_ += child.seconds_[c.slot];
        if (c.key) {
            ++child.kernels_;
            child.illegal_ += c.legal ? 0 : 1;
        }
    }
    return child;
}

void KernelTable::set_prices(const std::unordered_map<uint64_t, double> &seconds) {
    total_ = ExactSum();
    for (size_t slot = 0; slot < keys_.size(); ++slot) {
        seconds_.set(slot, keys_[slot] ? seconds.at(keys_[slot]) : 0.0);
        total_ += seconds_[slot];
    }
}

double KernelTable::price(const std::vector<RecomposedKernel> &changes,
                          const std::unordered_map<uint64_t, double> &seconds) const {
    int illegal = illegal_;
    for (const RecomposedKernel &c : changes) {
        if (keys_[c.slot] && !legal_[c.slot]) --illegal;
        if (c.key && !c.legal) ++illegal;
    }
    if (illegal > 0) return std::numeric_limits<double>::infinity();
    ExactSum total = total_;
    for (const RecomposedKernel &c : changes) {
        total -= seconds_[c.slot];
        if (c.key) total += seconds.at(c.key);
    }
    return total.seconds();
}

}  // namespace strata::autoscheduler
