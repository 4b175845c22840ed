// Occupancy: how many blocks of a kernel fit on one SM at once, what limits
// them (threads, registers, shared memory, the block-slot limit), and how
// the grid splits into waves over the GPU.
//
// Example:
//   Occupancy o = occupancy(spec, /*threads=*/256, /*registers=*/32, /*shared=*/0);
//   double w = waves(spec, o, /*blocks=*/spec.sm_count * o.blocks_per_sm + 1);  // just over one wave
//   wave_efficiency(w);   // ~0.5: the second wave is nearly empty
#pragma once

#include "strata/costmodel/GpuSpec.h"

#include <cstdint>

namespace strata::autoscheduler {

struct Occupancy {
    int blocks_per_sm = 0;          // 0: the block cannot run at all
    double occupancy = 0;           // resident warps / max warps per SM
    enum class Limit { Threads, Registers, SharedMemory, BlockSlots } limited_by = Limit::Threads;
};

Occupancy occupancy(const costmodel::GpuSpec &spec, int64_t threads_per_block, int registers_per_thread,
                    int64_t shared_bytes_per_block);

// Blocks / (SMs × resident blocks per SM).
double waves(const costmodel::GpuSpec &spec, const Occupancy &o, int64_t blocks);

// The fraction of the launched waves' block slots that do work: waves / ceil(waves).
double wave_efficiency(double waves);

}  // namespace strata::autoscheduler
