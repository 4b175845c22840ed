// ScheduleImport: reads the schedule a pipeline's Funcs carry now — written
// by hand or by another autoscheduler — into a Strata Schedule, so Strata's
// cost model can price it (scripts/bench-compile compares Li2018's schedules
// with ours this way).
//
// Strata's space cannot express every Halide schedule exactly; what it
// approximates (a fused thread loop, a compute_at level between block and
// thread loops) is listed. Wrapper Funcs (Func::in()) are read as Halide
// lowers them when the DAG is built with Wrappers::AsLowered.
//
// Example:
//   pipeline.apply_autoscheduler(target, {"Anderson2021", {}});
//   FunctionDAG dag(pipeline.outputs(), Wrappers::AsLowered);
//   ImportedSchedule imported = import_schedule(dag, spec);
//   double seconds = BeamSearch(dag, spec, model, params).cost(imported.schedule);
#pragma once

#include "FunctionDAG.h"
#include "Schedule.h"

#include "strata/costmodel/GpuSpec.h"

#include <string>
#include <vector>

namespace strata::autoscheduler {

struct ImportedSchedule {
    Schedule schedule;
    std::vector<std::string> approximations;
};

ImportedSchedule import_schedule(const FunctionDAG &dag, const costmodel::GpuSpec &spec);

}  // namespace strata::autoscheduler
