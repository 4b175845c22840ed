// LoweredCheck: the check that the cost model prices what Halide builds.
// For one schedule it keeps what the Featurizer priced, kernel by kernel
// (blocks, threads, points computed per Func, global bytes, where each
// member Func lives), and, when Halide lowers the pipeline — the
// generator's own compilation, through a custom lowering pass — counts the
// same things in the lowered Stmt (LoweredCounts) and writes the comparison
// as JSON. A count more than 10% off (global bytes, and the threads of a
// block that compute a per-block Func: more than kTrafficFactor apart), or
// a per-block / per-thread Func that Halide placed anywhere but shared
// memory / a per-thread array, is a mismatch naming the kernel, the Func
// and the count.
//
// The report also holds each Func's redundant-work factor: the points
// Halide computes over the points the algorithm needs; and every buffer
// allocated outside the kernels, with the kernel it was priced in
// (`priced_member_of`) where the model took it for a member.
//
// Example (inside an autoscheduler, after the schedule is applied):
//   install_lowered_check(pipeline, priced_schedule(dag, schedule, featurization, spec), "blur.lowered.json");
//   // ... the generator lowers the pipeline; the report appears.
#pragma once

#include "Featurizer.h"
#include "FunctionDAG.h"
#include "LoweredCounts.h"
#include "Schedule.h"

#include "strata/costmodel/GpuSpec.h"

#include "Halide.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace strata::autoscheduler {

// What the Featurizer priced for one kernel.
struct PricedKernel {
    std::string name;  // "<func>.s<k>" of its root stage
    double blocks = 0, threads_per_block = 0;  // blocks: over all launches
    double launches = 1;
    double registers = 0;  // per thread, the model's estimate; ptxas's count is the check (strata-ptx-check)
    std::map<std::string, double> points;       // per Func, all its stages in this kernel
    std::map<std::string, double> threads;      // per Func: the block's threads that compute it (most of its stages)
    std::map<std::string, std::string> members;  // Func → "Register" (Thread) or "GPUShared" (Block)
    double global_load_bytes = 0, global_store_bytes = 0;
    std::map<std::string, double> load_bytes;  // per Func
};

struct PricedSchedule {
    std::vector<PricedKernel> kernels;
    std::map<std::string, double> needed_points;  // per Func: its stages over its root region
    std::map<std::string, Halide::Expr> values;    // parameters at their estimates
    std::map<std::string, int> funcs;  // name → values per point
    // Funcs the schedule makes that the model prices as part of another
    // (a chunked stage's rfactor() intermediate, chunk_partials_name()):
    // their lowered counts are that Func's.
    std::map<std::string, std::string> priced_as;
    // The GPU's global memory transaction: byte counts are compared from
    // one sector up (a one-thread kernel that stores 4 bytes or 20 moves
    // one sector either way).
    double sector_bytes = costmodel::GpuSpec().global_memory_sector_bytes;
};

// `made_funcs`: the Funcs the applied schedule made, by their name in the
// schedule → their name in Halide (ScheduleWriter::made_funcs()).
PricedSchedule priced_schedule(const FunctionDAG &dag, const Schedule &schedule,
                               const ScheduleFeaturization &featurization, const costmodel::GpuSpec &spec,
                               const std::map<std::string, std::string> &made_funcs = {});

// The comparison, as the report's JSON: {"status": "pass"|"fail", "kernels": [...],
// "funcs": [...], "mismatches": [...]}. Differences above `tolerance` (relative) fail;
// global bytes loaded and stored fail when more than kTrafficFactor apart,
// each counted as at least one sector.
constexpr double kTrafficFactor = 2.0;
nlohmann::json compare_lowered(const PricedSchedule &priced, const LoweredCounts &lowered, double tolerance = 0.10);

// Registers a custom lowering pass on `pipeline` (shared with the caller's
// copies) that writes compare_lowered() to `report_path` when it is lowered.
void install_lowered_check(const Halide::Pipeline &pipeline, PricedSchedule priced, const std::string &report_path);

}  // namespace strata::autoscheduler
