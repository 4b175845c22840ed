#include "Occupancy.h"

#include <algorithm>
#include <cmath>

namespace strata::autoscheduler {

Occupancy occupancy(const costmodel::GpuSpec &spec, int64_t threads_per_block, int registers_per_thread,
                    int64_t shared_bytes_per_block) {
    Occupancy o;
    const int64_t warps = (std::max<int64_t>(threads_per_block, 1) + spec.warp_size - 1) / spec.warp_size;
    if (threads_per_block > spec.max_threads_per_block || registers_per_thread > spec.max_registers_per_thread ||
        shared_bytes_per_block > spec.shared_memory_per_block_optin) {
        return o;
    }
    int64_t best = spec.max_blocks_per_sm;
    o.limited_by = Occupancy::Limit::BlockSlots;
    auto limit = [&](int64_t blocks, Occupancy::Limit why) {
        if (blocks < best) best = blocks, o.limited_by = why;
    };
    limit(spec.max_warps_per_sm / warps, Occupancy::Limit::Threads);
    // Registers are allocated per warp, rounded up to the allocation unit.
    const int64_t unit = std::max(spec.register_allocation_unit, 1);
    const int64_t regs_per_warp = ((int64_t(registers_per_thread) * spec.warp_size + unit - 1) / unit) * unit;
    if (regs_per_warp > 0) limit(spec.registers_per_sm / (regs_per_warp * warps), Occupancy::Limit::Registers);
    if (shared_bytes_per_block > 0) {
        limit(spec.shared_memory_per_sm / shared_bytes_per_block, Occupancy::Limit::SharedMemory);
    }
    o.blocks_per_sm = int(std::max<int64_t>(best, 0));
    o.occupancy = double(o.blocks_per_sm * warps) / double(std::max(spec.max_warps_per_sm, 1));
    return o;
}

double waves(const costmodel::GpuSpec &spec, const Occupancy &o, int64_t blocks) {
    const double slots = double(std::max(spec.sm_count, 1)) * std::max(o.blocks_per_sm, 1);
    return double(blocks) / slots;
}

double wave_efficiency(double w) {
    if (w <= 0) return 1;
    return w / std::ceil(w);
}

}  // namespace strata::autoscheduler
