// CodeSize: where Strata gives up a little predicted speed for much less code.
//
// Halide copies a kernel whose threads unroll checked serial points (a
// guarded split the pipeline's symbolic extents may not fill): an interior
// copy without the checks and border copies with them (loop partitioning).
// At the estimated sizes the borders are few or none, but their copies are
// what make Strata's kernels several times Li2018's PTX, and LLVM compiles
// every line: camera_pipe's object 365 KB against 141 KB unpartitioned, its
// whole generator 2.4 s against 1.7 s. Unpartitioned, every block runs the
// checks and no load is shared between two of a thread's points, which the
// model prices (KernelGeometry), so a kernel is unpartitioned only while the
// whole pipeline's predicted time stays within a budget.
//
// Example:
//   auto price = [&](const Schedule &s) { return search.cost(s); };
//   const int kernels = unpartition_within(schedule, price, 0.01);  // ≤ 1% slower
#pragma once

#include "Schedule.h"

#include <functional>

namespace strata::autoscheduler {

// Marks kernels unpartitioned (GpuTiling::partitioned = false), those with
// the most unrolled work first, while `price` of the schedule stays within
// (1 + budget) times its price as given. Returns how many were marked.
int unpartition_within(Schedule &schedule, const std::function<double(const Schedule &)> &price, double budget);

}  // namespace strata::autoscheduler
