#include "ScheduleSnapshot.h"

namespace strata::autoscheduler {

using namespace Halide::Internal;

ScheduleSnapshot::ScheduleSnapshot(const FunctionDAG &dag) {
    for (const Node *node : dag.funcs()) {
        Function f = node->func;
        std::map<FunctionPtr, FunctionPtr> copied;
        Saved s{f, f.schedule().deep_copy(copied), {}};
        if (f.definition().defined()) s.stages.push_back(f.definition().schedule().get_copy());
        for (const Definition &u : f.updates()) s.stages.push_back(u.schedule().get_copy());
        saved_.push_back(std::move(s));
    }
}

void ScheduleSnapshot::restore() {
    for (Saved &s : saved_) {
        s.func.schedule() = s.schedule;
        size_t i = 0;
        if (s.func.definition().defined()) s.func.definition().schedule() = s.stages[i++];
        for (int u = 0; u < int(s.func.updates().size()); ++u) s.func.update(u).schedule() = s.stages[i++];
    }
}

}  // namespace strata::autoscheduler
