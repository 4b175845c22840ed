// RowReductionSchedule: the manual GPU schedule of a per-row statistic (a
// max, a sum) read by a consumer that runs a warp per row — the softmax,
// layer_norm and attention apps. Shared by the apps' generators; the dsl
// itself stays free of schedules.
//
// Example (softmax: output(f, r) one kernel, 8 rows per block, a warp per row):
//   output.compute_root().split(r, ro, ri, 8).split(f, fo, fi, 32).reorder(fo, fi, ri, ro)
//       .gpu_blocks(ro).gpu_threads(fi, ri);
//   strata::apps::parallelize_row_reduction(output, find_stage(probs, "probs_max"), ro, 32);
#pragma once

#include "Halide.h"

namespace strata::apps {

// stat(row, ...) = a reduction over its first RVar (the row's elements), to
// be computed inside each block of consumer (`block`: consumer's block
// loop). A row is too short to keep a block busy, so the reduction is
// parallelized by rfactor: lane u of the warp reduces the elements u,
// u + lanes, ... (coalesced) into partials(row, ..., u) in shared memory,
// then one thread per row folds the `lanes` partials.
inline void parallelize_row_reduction(Halide::Func consumer, Halide::Func stat, Halide::Var block, int lanes) {
    const Halide::Var row = stat.args()[0];
    Halide::RVar slice("slice"), lane("lane");
    Halide::Var u("u");
    Halide::Func partials = stat.update().split(stat.rvars(0)[0], slice, lane, lanes).rfactor(lane, u);
    partials.compute_at(consumer, block).reorder(u, row).gpu_threads(u, row);
    partials.update().reorder(slice, u, row).gpu_threads(u, row);
    stat.compute_at(consumer, block).gpu_threads(row);
    stat.update().gpu_threads(row);
}

}  // namespace strata::apps
