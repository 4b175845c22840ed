// ScheduleSnapshot: a copy of what a pipeline's Funcs carry — their
// schedules and their definitions — to put back when a call fails half-way
// (a search that throws, a schedule Halide rejects, a reduction factored
// before a later error), so that nothing Strata did survives a failed call
// and a fallback or a second call starts from the user's pipeline.
//
// Example:
//   ScheduleSnapshot before(dag);
//   try { factor(); writer.apply(); } catch (...) { before.restore(); apply_fallback(); }
#pragma once

#include "FunctionDAG.h"

#include "Halide.h"

#include <vector>

namespace strata::autoscheduler {

class ScheduleSnapshot {
public:
    explicit ScheduleSnapshot(const FunctionDAG &dag);
    void restore();

    // Remembers this snapshot as the state of its Funcs before Strata
    // scheduled them (kept only for Funcs not remembered already).
    void remember_as_unscheduled() const;
    // Puts back the remembered state of every Func reachable from `outputs`
    // that Strata scheduled in an earlier call in this process, so that a
    // second call starts from the user's pipeline, not from Strata's
    // previous answer (and does not factor a reduction twice).
    static void undo_earlier_schedules(const std::vector<Halide::Func> &outputs);

private:
    struct Saved {
        Halide::Internal::Function func;
        Halide::Internal::FuncSchedule schedule;
        // Pure definition (if any), then updates; each with its stage schedule.
        std::vector<Halide::Internal::Definition> definitions;
        bool has_pure_definition = false;
    };
    std::vector<Saved> saved_;
    static void restore(Saved &s);
};

}  // namespace strata::autoscheduler
