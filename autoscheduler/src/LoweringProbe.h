// LoweringProbe: whether Halide accepts a schedule, found by lowering it.
//
// Some facts about a schedule are decided only while Halide lowers it:
// whether a per-thread buffer has a size Halide can prove constant (registers
// and unrolled loops need one), whether an explicit storage bound covers
// what bounds inference requires. The probe lowers the pipeline the way the
// generator will, up to the end of Halide's passes — no code is generated —
// and returns Halide's error, or a message of its own when a storage bound
// Halide could not prove is left to a check inside a GPU kernel (dropped by
// the OpenCL back end, a trap under CUDA: an overrun either way) and the
// probe cannot prove it either, case by case over where the tile starts
// (ResidueProof), or when an output's whole computation was lowered away, so
// the autoscheduler can repair its answer before the generator compiles it.
// A Func the message names is found with funcs_named_in().
//
// Example:
//   if (std::optional<std::string> error = lowering_error(pipeline.outputs(), target)) {
//       for (const std::string &f : funcs_named_in(*error, member_names)) demote(f);
//   }
#pragma once

#include "Halide.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata::autoscheduler {

// Halide's message if lowering the pipeline of `outputs` for `target` fails,
// one naming the Funcs whose storage bounds are checked inside kernels, or
// one naming an output the lowered code never computes; nothing if it
// lowers cleanly. The caller's Pipeline objects (and their custom
// lowering passes) are not involved.
std::optional<std::string> lowering_error(const std::vector<Halide::Func> &outputs, const Halide::Target &target);

// Installs on `pipeline` a lowering pass that takes out the storage checks
// Halide leaves inside GPU kernels where they hold for every tile (the ones
// lowering_error() accepts): the OpenCL back end would drop each with a
// warning, the CUDA one test it in every block.
//
// Example:
//   if (!lowering_error(pipeline.outputs(), target)) drop_proven_storage_checks(pipeline);
void drop_proven_storage_checks(const Halide::Pipeline &pipeline);

// The target a probe of the pipeline of `outputs` lowers for, standing in
// for `target`: for CUDA, the same target with OpenCL in CUDA's place.
// Halide's lowering for the two differs only by the CUDA warp-shuffle pass
// (10-30% of a lowering on the apps), which rewrites GPU lane loops the
// writer never emits; bounds, buffer sizes and the checks kernels keep come
// out the same. A schedule a user kept may use lanes or name the CUDA API
// (`user_schedules`), and an extern stage may name it: then `target` itself.
//
// Example:
//   const Halide::Target probe_for = probe_target(target, pipeline.outputs(), !kept.empty());
Halide::Target probe_target(const Halide::Target &target, const std::vector<Halide::Func> &outputs,
                            bool user_schedules);

// The names among `candidates` that `message` mentions as a Func: a whole
// name, or the prefix of a loop or stage name ("f.s0.y").
std::set<std::string> funcs_named_in(const std::string &message, const std::set<std::string> &candidates);

}  // namespace strata::autoscheduler
