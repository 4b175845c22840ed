// ScheduleSnapshot: a copy of the schedules a pipeline's Funcs carry, to put
// back if applying a searched schedule fails half-way, so the fallback
// schedule starts from a clean pipeline.
//
// Example:
//   ScheduleSnapshot before(dag);
//   try { writer.apply(); } catch (...) { before.restore(); apply_fallback(); }
#pragma once

#include "FunctionDAG.h"

#include "Halide.h"

#include <vector>

namespace strata::autoscheduler {

class ScheduleSnapshot {
public:
    explicit ScheduleSnapshot(const FunctionDAG &dag);
    void restore();

private:
    struct Saved {
        Halide::Internal::Function func;
        Halide::Internal::FuncSchedule schedule;
        std::vector<Halide::Internal::StageSchedule> stages;  // pure definition, then updates
    };
    std::vector<Saved> saved_;
};

}  // namespace strata::autoscheduler
