//===- StageLeaves.cpp - a stage's loads through its inlined Funcs --------===//
//
// A stage's leaves are composed from its accesses: a call of a stored Func
// is a leaf of its own, a call of an inlined one brings that Func's leaves
// (of the elements called) with the call prepended to each chain. Leaves
// whose index texts are equal are one load; past kMaxLeafAccesses the
// leaves of one callee are merged into one. Each composition, the inner
// ones included, is cached under its key, so a kernel analysis that meets a
// stage with the same inlined Funcs again reads the leaves back.
//===----------------------------------------------------------------------===//
#include "StageLeaves.h"

#include "GpuTiling.h"  // hash_combine

#include <algorithm>
#include <mutex>
#include <set>

namespace strata::autoscheduler {

namespace {

// More distinct call chains than this are merged per callee (a deep chain of
// inlined stencils has exponentially many; they share one access pattern).
constexpr size_t kMaxLeafAccesses = 64;

// Leaves whose indices Halide writes the same way once their inlined Funcs
// are substituted are one load (index_text): bilateral_grid's histogram
// reads each pixel through the grid's value and through its guide, one
// load in the Stmt; lens_blur's radius(sx, sy) and depth(sx, sy) load one
// depth_search element per tap by the same data-dependent text. Leaves
// that reach one element by different texts are loaded apart (fuzz seed
// 2662's taps through nested boundary conditions).
std::vector<LeafAccess> merge_same_elements(std::vector<LeafAccess> leaves) {
    if (leaves.size() < 2) return leaves;
    std::unordered_map<uint64_t, size_t> seen;
    std::vector<LeafAccess> out;
    for (LeafAccess &leaf : leaves) {
        auto [it, inserted] = seen.emplace(leaf.text.key, out.size());
        if (!inserted) {
            out[it->second].count = std::max(out[it->second].count, leaf.count);
            out[it->second].read_bytes = std::max(out[it->second].read_bytes, leaf.read_bytes);
            continue;
        }
        out.push_back(std::move(leaf));
    }
    return out;
}

std::vector<LeafAccess> merged_per_callee(const std::vector<LeafAccess> &leaves) {
    std::vector<LeafAccess> merged;
    for (const LeafAccess &l : leaves) {
        auto m = std::find_if(merged.begin(), merged.end(), [&](const LeafAccess &x) { return x.callee == l.callee; });
        if (m == merged.end()) {
            merged.push_back(l);
        } else {
            m->count += l.count;
        }
    }
    return merged;
}

}  // namespace

size_t StageLeaves::KeyHash::operator()(const Key &k) const {
    uint64_t h = hash_combine(0x6c6561766573, uint64_t(reinterpret_cast<uintptr_t>(k.stage)));
    h = hash_combine(hash_combine(h, k.values), uint64_t(k.inlined));
    for (int id : k.closure) h = hash_combine(h, uint64_t(id));
    return size_t(h);
}

const std::vector<LeafAccess> &StageLeaves::of(const Stage &s, uint64_t values, const NodeMap<Role> &roles,
                                               int kernel) {
    Key key{&s, values, roles[s.node->id] == Role::Inlined, inlined_closure(s, roles, kernel)};
    Shard &shard = shards_[KeyHash()(key) % kShards];
    {
        std::shared_lock<std::shared_mutex> reading(shard.mutex);
        if (auto it = shard.leaves.find(key); it != shard.leaves.end()) return it->second;
    }
    std::vector<LeafAccess> composed = compose(key, roles, kernel);
    std::unique_lock<std::shared_mutex> writing(shard.mutex);
    return shard.leaves.emplace(std::move(key), std::move(composed)).first->second;
}

// The leaf loads of an inlined Func are those of the elements read (fuzz
// seed 3198: a pointwise stage reads one element of an inlined pair, whose
// other element's chain back to a float64 input was priced at 12 bytes a
// point; Halide inlines only the element read).
std::vector<LeafAccess> StageLeaves::compose(const Key &key, const NodeMap<Role> &roles, int kernel) {
    const Stage &s = *key.stage;
    std::vector<LeafAccess> out;
    for (const Access &a : s.accesses) {
        if (!(a.in_values & key.values)) continue;
        if (a.callee->id != kernel && roles[a.callee->id] == Role::Inlined) {
            for (const LeafAccess &inner : of(*a.callee->stages[0], a.elements_for(key.values), roles, kernel)) {
                LeafAccess l = inner;
                l.count *= a.count;
                l.chain.insert(l.chain.begin(), &a);
                l.text = texts_.of(l);
                out.push_back(std::move(l));
            }
        } else {
            LeafAccess l{a.callee, double(a.count), {&a}};
            l.read_bytes = a.bytes_for(key.values);
            l.text = texts_.of(l);
            out.push_back(std::move(l));
        }
    }
    // Where `s` is a stage of its own (not inlined into one), the loads of
    // what its inlined Funcs fold away go (InlinedFolds.h).
    if (!key.inlined) {
        const std::set<int> &unread = folds_.of(s, key.closure).unread;
        if (!unread.empty()) {
            out.erase(std::remove_if(out.begin(), out.end(),
                                     [&](const LeafAccess &l) { return unread.count(l.callee->id) > 0; }),
                      out.end());
        }
    }
    out = merge_same_elements(std::move(out));
    return out.size() > kMaxLeafAccesses ? merged_per_callee(out) : out;
}

}  // namespace strata::autoscheduler
