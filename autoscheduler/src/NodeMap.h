// NodeMap: values for the few DAG nodes one kernel involves (its Funcs and
// the Funcs and inputs they read), by node id, in a short list sorted by id.
//
// A kernel's analysis keeps several per-node tables (roles, regions per
// box, storage). Indexed by every node of the pipeline, each table made an
// analysis cost in proportion to the pipeline's size: an 800-stage chain's
// search spent more time clearing tables than analysing kernels. A NodeMap
// costs in proportion to the kernel's own nodes, a handful.
//
// Example:
//   NodeMap<std::optional<Region>> regions;
//   regions.slot(producer) = footprint;         // inserted if absent
//   if (const std::optional<Region> &r = regions[id]) use(*r);  // nullopt if absent
//   for (const auto &[id, region] : regions) ...  // ascending ids
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace strata::autoscheduler {

template <typename T>
class NodeMap {
public:
    using Entry = std::pair<int, T>;

    // The value of node `id`; a default-constructed T for a node not in the map.
    const T &operator[](int id) const {
        const auto it = lower_bound(id);
        if (it != entries_.end() && it->first == id) return it->second;
        static const T absent{};
        return absent;
    }
    // The value of node `id`, inserted default-constructed if absent. The
    // reference lasts until the next insertion.
    T &slot(int id) {
        auto it = std::lower_bound(entries_.begin(), entries_.end(), id, id_below);
        if (it == entries_.end() || it->first != id) it = entries_.insert(it, Entry{id, T{}});
        return it->second;
    }

    typename std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
    typename std::vector<Entry>::const_iterator end() const { return entries_.end(); }

private:
    static bool id_below(const Entry &e, int id) { return e.first < id; }
    typename std::vector<Entry>::const_iterator lower_bound(int id) const {
        return std::lower_bound(entries_.begin(), entries_.end(), id, id_below);
    }

    std::vector<Entry> entries_;
};

}  // namespace strata::autoscheduler
