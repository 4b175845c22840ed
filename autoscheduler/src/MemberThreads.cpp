//===- MemberThreads.cpp - a block member's loops over its kernel's threads ===//
//
// One mapping, read by ScheduleWriter::write_block_member (the splits it
// emits), KernelWarps (where each lane's first point lies) and
// KernelAnalysis (how many threads work, and how long each runs).
//===----------------------------------------------------------------------===//
#include "MemberThreads.h"

#include <algorithm>

namespace strata::autoscheduler {

std::vector<int64_t> member_loop_threads(const Stage &stage, const std::vector<Span> &member_bounds,
                                         const std::vector<int64_t> &kernel_thread_extents) {
    std::vector<int64_t> threads(stage.loops.size(), 1);
    size_t next = 0;
    for (size_t i = 0; i < stage.loops.size() && next < kernel_thread_extents.size(); ++i) {
        if (stage.loops[i].is_rvar) continue;
        if (i < member_bounds.size() && member_bounds[i].extent <= 1) continue;
        threads[i] = kernel_thread_extents[next++];
    }
    return threads;
}

std::vector<int64_t> own_loop_threads(const Stage &stage, const std::vector<int64_t> &pure_loop_threads) {
    std::vector<int64_t> threads(stage.loops.size(), 1);
    for (size_t i = 0, pure = 0; i < threads.size() && pure < pure_loop_threads.size(); ++i) {
        if (!stage.loops[i].is_rvar) threads[i] = pure_loop_threads[pure++];
    }
    return threads;
}

int64_t threads_with_work(const std::vector<int64_t> &loop_threads, const std::vector<Span> &member_bounds) {
    int64_t active = 1;
    for (size_t i = 0; i < loop_threads.size(); ++i) {
        const int64_t extent =
            i < member_bounds.size() ? std::max<int64_t>(member_bounds[i].extent, 1) : loop_threads[i];
        active *= std::min(loop_threads[i], extent);
    }
    return active;
}

int64_t active_member_threads(const Stage &stage, const std::vector<Span> &member_bounds,
                              const std::vector<int64_t> &kernel_thread_extents) {
    return threads_with_work(member_loop_threads(stage, member_bounds, kernel_thread_extents), member_bounds);
}

}  // namespace strata::autoscheduler
