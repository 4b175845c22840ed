#include "ScheduleSnapshot.h"

#include <map>
#include <mutex>

namespace strata::autoscheduler {

using namespace Halide::Internal;

ScheduleSnapshot::ScheduleSnapshot(const FunctionDAG &dag) {
    for (const Node *node : dag.funcs()) {
        Function f = node->func;
        std::map<FunctionPtr, FunctionPtr> copied;
        Saved s{f, f.schedule().deep_copy(copied), {}, f.definition().defined()};
        if (s.has_pure_definition) s.definitions.push_back(f.definition().get_copy());
        for (const Definition &u : f.updates()) s.definitions.push_back(u.get_copy());
        saved_.push_back(std::move(s));
    }
}

void ScheduleSnapshot::restore(Saved &s) {
    std::map<FunctionPtr, FunctionPtr> copied;
    s.func.schedule() = s.schedule.deep_copy(copied);
    size_t i = 0;
    // Copies again, so that restoring twice restores the same thing.
    if (s.has_pure_definition) s.func.definition() = s.definitions[i++].get_copy();
    const int updates = int(s.func.updates().size());
    for (int u = 0; u < updates && i < s.definitions.size(); ++u) s.func.update(u) = s.definitions[i++].get_copy();
}

void ScheduleSnapshot::restore() {
    for (Saved &s : saved_) restore(s);
}

namespace {

// Per Func (by its contents), its state before Strata first scheduled it.
// Process-wide: Funcs outlive the calls that schedule them.
std::mutex &registry_lock() {
    static std::mutex lock;
    return lock;
}

template <typename Saved>
std::map<const void *, Saved> &registry() {
    static std::map<const void *, Saved> saved;
    return saved;
}

}  // namespace

void ScheduleSnapshot::remember_as_unscheduled() const {
    std::lock_guard<std::mutex> guard(registry_lock());
    auto &saved = registry<Saved>();
    for (const Saved &s : saved_) saved.emplace(s.func.get_contents().get(), s);
}

void ScheduleSnapshot::undo_earlier_schedules(const std::vector<Halide::Func> &outputs) {
    std::lock_guard<std::mutex> guard(registry_lock());
    auto &saved = registry<Saved>();
    if (saved.empty()) return;
    for (const Halide::Func &output : outputs) {
        for (auto &[name, f] : find_transitive_calls(output.function())) {
            auto it = saved.find(f.get_contents().get());
            if (it != saved.end()) restore(it->second);
        }
        auto it = saved.find(output.function().get_contents().get());
        if (it != saved.end()) restore(it->second);
    }
}

}  // namespace strata::autoscheduler
