// LoweredCounts: what Halide really built for a schedule, counted from its
// lowered Stmt (the conceptual Stmt: after GPU thread-loop fusion, before
// device offload) — per GPU kernel, the blocks and threads launched, the
// points computed per Func and how many of a block's threads compute it
// (a condition on the thread indices picks them: one, for a stage with no
// thread loops of its own), the allocations with their memory type and
// size, and the bytes loaded from and stored to global memory; outside the
// kernels, the allocations Halide made for Funcs (a per-thread or per-block
// Func allocated there lives in global memory).
//
// Symbolic sizes are evaluated with the values of the pipeline's buffer
// shapes and scalar parameters at their estimates. A loop's body is counted
// at a representative interior iteration (each loop variable bound to the
// middle of its range), so guarded tails and loop-partitioned epilogues
// count as the steady state does; loads are counted once per distinct
// address expression within one straight-line body (what common-subexpression
// elimination leaves of an unrolled tile), compared with lets expanded but
// parameters and buffer shapes left symbolic, as the compiler sees them:
// two addresses equal only at the estimates are two loads in the PTX. An
// element kept in a register across the serial loops around it (an
// accumulator over its reduction loop) is loaded and stored once per run
// of the body that holds those loops, and the loops of one body that keep
// it (a reduction loop Halide partitioned into runs) share that load and
// store. LLVM keeps an access only where no other access of the loop may
// reach the same element by another address (two addresses a symbolic
// stride apart may be one element; a kernel's heap Funcs share a buffer).
//
// Example:
//   LoweredCounts counts = count_lowered(stmt, values_from_estimates(dag));
//   for (const LoweredKernel &k : counts.kernels) std::cout << k.name << " " << k.blocks << "\n";
#pragma once

#include "FunctionDAG.h"

#include "Halide.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace strata::autoscheduler {

struct LoweredAllocation {
    std::string func;    // the Func whose storage it is
    std::string memory;  // Halide's MemoryType, as printed ("Register", "GPUShared", "Heap", ...)
    int64_t bytes = -1;  // -1: not a compile-time constant
};

struct LoweredKernel {
    std::string name;  // the stage of its outermost block loop, "<func>.s<k>"
    double blocks = 0, threads_per_block = 0;  // blocks: over all launches
    double launches = 1;            // the points of the host loops around it
    double grid[3] = {1, 1, 1};     // blocks of one launch along x, y, z (block_id_x, _y, _z)
    double block_dims[3] = {1, 1, 1};  // threads along x, y, z
    std::map<std::string, double> points;  // stores per Func (first tuple element), whole launch
    std::map<std::string, double> threads;  // threads of a block that store to each Func
    std::vector<LoweredAllocation> allocations;
    double global_load_bytes = 0, global_store_bytes = 0;
    std::map<std::string, double> load_bytes;  // global bytes loaded, by the Func whose produce block loads them
};

struct LoweredCounts {
    std::vector<LoweredKernel> kernels;
    std::vector<LoweredAllocation> outside_kernels;  // Funcs allocated outside every kernel
    std::map<std::string, double> host_points;       // points Funcs compute outside every kernel (on the CPU)
    std::vector<std::string> unevaluated;            // sizes that stayed symbolic (counted as 1)
};

// Values for the Variables a lowered pipeline reads: "<buffer>.min.<d>",
// "<buffer>.extent.<d>", "<buffer>.stride.<d>" of its inputs and outputs (dense,
// at their estimated regions) and its scalar parameters at their estimates.
std::map<std::string, Halide::Expr> values_from_estimates(const FunctionDAG &dag);

// `funcs`: the pipeline's Funcs, each with its values per point (its tuple
// size, which tells a tuple element's buffer from a copy of one); allocations
// of anything else, such as Halide's own temporaries, are not listed outside
// kernels.
LoweredCounts count_lowered(const Halide::Internal::Stmt &stmt, const std::map<std::string, Halide::Expr> &values,
                            const std::map<std::string, int> &funcs);

}  // namespace strata::autoscheduler
