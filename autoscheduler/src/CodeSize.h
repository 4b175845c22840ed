// CodeSize: where Strata gives up a little predicted speed for much less code.
//
// Halide copies a kernel whose threads unroll checked serial points (a
// guarded split the pipeline's symbolic extents may not fill): an interior
// copy without the checks and border copies with them (loop partitioning).
// At the estimated sizes the borders are few or none, but their copies are
// what make Strata's kernels several times Li2018's PTX, and LLVM compiles
// every line: camera_pipe's object 365 KB against 141 KB unpartitioned, its
// whole generator 2.4 s against 1.7 s.
//
// Three ways out, tried per kernel in this order, each kept only while the
// whole pipeline's predicted time stays within a budget:
//  - Shifted tails: the last tile of each tiled loop is computed whole,
//    shifted back over points already computed (Halide's ShiftInwards), so
//    no point is checked, loads are shared between a thread's points as in
//    the interior, and Halide keeps at most two copies (the interior, and
//    the blocks whose tile start along the thread loop is clamped). The
//    price is the recomputed points. A schedule must run at any size: on
//    a run whose loop is shorter than the tile, the shifted tile starts
//    before the loop does. So: a pure definition only, not an output (its
//    buffer is the caller's), along loops at least a tile long at the
//    estimates, and only where computing the Func before its start reads
//    no input buffer before where it reads it anyway (every path to the
//    inputs clamps there: a boundary condition).
//    Halide's own default tail (ShiftInwards everywhere) instead asks the
//    caller for inputs at least a tile wide.
//  - Fewer unrolled points: a thread's serial points along its most
//    unrolled loop halved (the blocks doubled), again while it fits. The
//    search picks the deepest unrolling among tilings it prices about
//    alike (camera_pipe's demosaic: 16 rows a thread; 8 are priced 0.4%
//    dearer for the whole pipeline, at half the PTX).
//  - Unpartitioned: every block runs the one checked copy, and no load is
//    shared between two of a thread's points.
// The model prices both (KernelGeometry).
//
// Shifted tails are also what Halide needs to bound a per-block member read
// through a division (divided_guarded_loops()); those are shifted whatever
// they cost (shift_tails_under_divisions()), before the three above.
//
// Example:
//   shift_tails_under_divisions(schedule);  // what Halide needs, whatever it costs
//   auto price = [&](const Schedule &s) { return search.cost(s); };
//   CodeSizeChanges made = shrink_code_within(schedule, price, 0.01);  // ≤ 1% slower
#pragma once

#include "KernelGeometry.h"
#include "Schedule.h"

#include <functional>
#include <vector>
#include <optional>

namespace strata::autoscheduler {

struct CodeSizeChanges {
    int shifted = 0;         // kernels whose tiled loops compute their last tile shifted inwards
    int fewer_unrolled = 0;  // kernels whose threads unroll fewer serial points
    int unpartitioned = 0;   // kernels left as one checked copy (GpuTiling::partitioned = false)
    bool any() const { return shifted + fewer_unrolled + unpartitioned > 0; }
};

// Shifts the tails of, unrolls fewer points in, and else unpartitions the
// kernels with unrolled serial points, those with the most unrolled work
// first, while `price` of the schedule stays within (1 + budget) times its
// price as given.
CodeSizeChanges shrink_code_within(Schedule &schedule, const std::function<double(const Schedule &)> &price,
                                   double budget);

// The tiling with half the serial points along its most unrolled loop;
// nothing when no loop has two.
std::optional<GpuTiling> with_half_the_serial_points(const GpuTiling &tiling);

// The stage's tiling with the tail of every tiled loop that may be shifted
// inwards (see above) shifted; the tiling as it is where none may.
GpuTiling with_shifted_tails(const FunctionDAG &dag, const Node &node, const Stage &stage, const GpuTiling &tiling);
// Whether the loop that tiling dimension `d` of `stage` tiles may have its
// last tile of `tile` points shifted inwards (see above). `reached` caches
// what the Func's root region reaches, for several calls on one Func.
bool tail_may_shift(const FunctionDAG &dag, const Node &node, const Stage &stage, size_t d, int64_t tile,
                    std::optional<std::vector<std::optional<Region>>> &reached);

// Tails Halide needs whole. A Block or Staged member that reads its
// kernel's region through a division (an upsample's x / 2) along a tiled
// loop whose last tile is guarded has an extent Halide does not bound — a
// difference of two quotients, one of a min() — and its storage bound is
// left to a check inside the kernel (every such case seen: interpolate's
// levels, and CodeSizeTest's upsamples by 2 to 16). With whole tiles the
// extent is a difference of quotients of one start, which Halide's
// simplifier proves for some divisions (by 4 and 16 there) and not others
// (by 2 and 8): the lowering probe decides those. The tiling dimensions of
// the member's kernel that are guarded and divided, for a member placed in
// `schedule`, or for one about to be placed in a kernel stage of `tiling`
// with `footprint`:
std::vector<size_t> divided_guarded_loops(const FunctionDAG &dag, const Schedule &schedule, int member);
std::vector<size_t> divided_guarded_loops(const Stage &stage, const GpuTiling &tiling, const MemberFootprint &footprint);
// Shifts those tails inwards in every such member's kernel (the search
// offers such members only where tail_may_shift() allows it). Returns the
// kernels changed.
int shift_tails_under_divisions(Schedule &schedule);

}  // namespace strata::autoscheduler
