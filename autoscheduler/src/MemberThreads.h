// MemberThreads: how a per-block (or per-chunk) member's loops are spread
// over its kernel's threads. The writer splits the member's loops by the
// kernel's thread counts, and the featurizer prices the threads that then
// have work; both read this one mapping, so what is emitted is what is priced.
//
// The kernel's thread dimensions, innermost first, go to the member's pure
// loops in order, skipping loops that span one point per block: a loop of
// extent 1 given 64 threads would leave 63 of them idle and the 64th to run
// every other loop alone (softmax's row sum, one row per block, ran 11×
// slower on an H200 than priced when its threads went to the row loop).
//
// Example: a kernel with 32×4 threads, a member with loops (y: 1, lane: 32,
// c: 3) per block gets y serial, lane over the 32 x-threads, c over the 4
// y-threads (3 of them with work): member_loop_threads(...) = {1, 32, 4},
// active_member_threads(...) = 32 × 3 = 96.
#pragma once

#include "FunctionDAG.h"

#include <cstdint>
#include <vector>

namespace strata::autoscheduler {

// The thread count each loop of `stage` is split by (1: the loop runs
// serially in every thread), given its per-block bounds and the kernel's
// thread counts, innermost first.
std::vector<int64_t> member_loop_threads(const Stage &stage, const std::vector<Span> &member_bounds,
                                         const std::vector<int64_t> &kernel_thread_extents);

// An imported member's own thread counts (FuncChoice::imported_threads,
// one per pure loop) as a count per loop of `stage`, ones for its RVars.
std::vector<int64_t> own_loop_threads(const Stage &stage, const std::vector<int64_t> &pure_loop_threads);

// The threads of a block that have points of a member to compute when its
// loops are spread over `loop_threads` (a count per loop of its stage; a
// loop past the bounds given is taken as long enough for its threads).
int64_t threads_with_work(const std::vector<int64_t> &loop_threads, const std::vector<Span> &member_bounds);

// The threads of a block that have points of the member to compute.
int64_t active_member_threads(const Stage &stage, const std::vector<Span> &member_bounds,
                              const std::vector<int64_t> &kernel_thread_extents);

}  // namespace strata::autoscheduler
