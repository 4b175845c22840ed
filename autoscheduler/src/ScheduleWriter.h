// ScheduleWriter: turns a complete Schedule into Halide scheduling
// directives — applied to the pipeline's Funcs, and printed as the C++ body
// of Halide's `apply_schedule_<name>()` — from one list, so that what is
// applied and what is emitted are the same.
//
// Loop naming for a Root stage over pure var x: x_b (blocks), x_t (threads),
// x_s (serial per thread, unrolled), in the tiling's layout (compact: x_t
// outer, x_s inner; strided: the reverse); its RVars stay innermost. Block
// members run their pure loops on the kernel's thread extents and live in
// shared memory; Thread members are computed inside the kernel's innermost
// thread loop into registers, with their pure loops unrolled innermost and
// their reductions outside them (register blocking).
//
// A chunked reduction (K-tiling) splits its chunked RVar r into r_o
// (chunks, outside the thread loops) and r_i, and rfactor()s r_o into the
// pure dimension r_chunk of an intermediate, "<func>_intm"
// (chunk_partials_name()), which holds one chunk's partial results: per
// thread in registers, computed inside the innermost thread loop with its
// pure loops unrolled inside r_i. The stage then adds one chunk's partials
// per point and chunk. Staged members are computed at r_o into shared
// memory by the block's threads.
//
// Every member's storage is bounded by the constant extents KernelGeometry
// derives — the regions the Featurizer prices — so Halide never falls back
// to a heap allocation.
//
// Example:
//   ScheduleWriter writer(dag, schedule);
//   writer.apply();                                   // schedules the Funcs
//   std::string body = writer.source(func_indices);   // AutoSchedulerResults::schedule_source
#pragma once

#include "Directive.h"
#include "FunctionDAG.h"
#include "KernelGeometry.h"
#include "Schedule.h"

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace strata::autoscheduler {

class ScheduleWriter {
public:
    // `spec`: the GPU whose grid limits the launch must respect. Funcs named
    // in `kept` carry the user's own schedule: nothing is written for them.
    ScheduleWriter(const FunctionDAG &dag, const Schedule &schedule, const costmodel::GpuSpec &spec,
                   const std::set<std::string> &kept = {});

    // Per Func (outputs first), the directives that realize the schedule.
    const std::vector<std::pair<std::string, std::vector<Directive>>> &directives() const { return per_func_; }

    // Applies every directive to the pipeline's Funcs.
    void apply();

    // The Funcs apply() made (a chunked stage's chunk_partials_name()), by
    // the name the directives give them → the name Halide gave them.
    const std::map<std::string, std::string> &made_funcs() const { return target_.halide_names(); }

    // The C++ source reproducing the schedule. `func_index` maps Func names to
    // Pipeline::get_func() indices.
    std::string source(const std::map<std::string, int> &func_index) const;

private:
    struct KernelLoops {
        std::string innermost_block;
        std::string innermost_thread;  // empty if the stage has no thread loop
        std::string chunk;             // a chunked reduction's chunk loop (else empty)
        std::vector<int64_t> thread_extents;  // innermost first
    };

    void write_root_stage(const Node &node, const Stage &stage, const StageChoice &choice,
                          std::vector<Directive> &out);
    void write_chunk_partials(const Node &node, const Stage &stage, int chunk_loop, const std::string &chunk_index,
                              const KernelLoops &loops, std::vector<Directive> &out);
    void write_member(const Node &node, const FuncChoice &choice, std::vector<Directive> &out);
    void write_thread_member(const Node &node, const KernelGeometry &geometry, std::vector<Directive> &out);
    void write_block_member(const Node &node, const KernelGeometry &geometry, const KernelLoops &loops,
                            std::vector<Directive> &out);
    void bound_member_storage(const Node &node, const FuncChoice &choice, std::vector<Directive> &out);
    // bound_extent(d, 1) for a register buffer's one-point dimensions.
    static void bound_one_point_extents(const std::string &func, const std::vector<std::string> &dims,
                                        const std::vector<int64_t> &extents, std::vector<Directive> &out);
    const KernelGeometry &geometry(int func, int stage);

    const FunctionDAG &dag_;
    const Schedule &schedule_;
    const costmodel::GpuSpec &spec_;
    DirectiveTarget target_;
    std::map<std::pair<int, int>, KernelLoops> kernel_loops_;
    // Kernels with members, analysed once (the scope outlives its geometry).
    std::map<std::pair<int, int>, std::pair<std::unique_ptr<KernelScope>, std::unique_ptr<KernelGeometry>>>
        geometries_;
    std::vector<std::pair<std::string, std::vector<Directive>>> per_func_;
};

}  // namespace strata::autoscheduler
