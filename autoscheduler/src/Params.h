// Params: every knob of the Strata autoscheduler in one place, with its
// default, its environment variable and its JSON key.
//
// Values are taken from the defaults below, then from the JSON file named by
// STRATA_CONFIG (keys are the field names), then from STRATA_* environment
// variables, later sources winning. Halide's MachineParams are not used for
// the GPU: the GPU comes from `gpu` / `gpu_spec_file`, else from the target's
// CUDA capability, else the cost model's default (see GpuSpec.h).
//
// Example:
//   STRATA_BEAM_SIZE=8 STRATA_SEED=3 generator ... -s Strata auto_schedule=true
//   Params p = Params::from_environment();
#pragma once

#include <cstdint>
#include <string>

namespace strata::autoscheduler {

struct Params {
    // Beam search. STRATA_BEAM_SIZE / "beam_size".
    int beam_size = 32;
    // Coarse-to-fine passes; pass k refines the tilings around pass k-1's
    // best schedule. STRATA_PASSES / "passes".
    int passes = 2;
    // Seed of the sampling of candidate tilings; same seed, same schedule.
    // STRATA_SEED / "seed".
    uint64_t seed = 0;
    // Tilings sampled per structural group of candidates (hierarchical
    // sampling). STRATA_SAMPLES_PER_GROUP / "samples_per_group".
    int samples_per_group = 3;
    // Phase 1 decides inline vs. root for every Func; phase 2 revisits only the
    // most expensive ones. How many: 0 means ceil(log2(number of Funcs)) + 2.
    // STRATA_FREE_STAGES / "free_stages".
    int free_stages = 0;
    // Run phase 2 at all. STRATA_TWO_PHASE / "two_phase" (1 = on).
    bool two_phase = true;
    // Memoize per-kernel features across candidate schedules.
    // STRATA_MEMOIZE / "memoize".
    bool memoize = true;
    // Threads per block at most. 256 keeps every kernel launchable whatever
    // register count ptxas picks (255 × 256 ≤ 64K registers per block);
    // raise it only for register-light pipelines.
    // STRATA_MAX_THREADS_PER_BLOCK / "max_threads_per_block".
    int max_threads_per_block = 256;
    // Parallelize reductions whose pure parallelism is too short for the GPU
    // (rfactor). STRATA_PARALLEL_REDUCTIONS / "parallel_reductions".
    bool parallel_reductions = true;
    // GPU spec by name (e.g. "h200"); empty: from the target. STRATA_GPU / "gpu".
    std::string gpu;
    // GPU spec from a JSON file (see GpuSpec.h). STRATA_GPU_SPEC / "gpu_spec_file".
    std::string gpu_spec_file;
    // Learned-model weights; empty: the shipped default.
    // STRATA_WEIGHTS / "weights".
    std::string weights;
    // "learned" (analytic terms × learned coefficients) or "analytic" (the
    // terms alone, for comparisons). STRATA_COST_MODEL / "cost_model".
    std::string cost_model = "learned";
    // 0 quiet, 1 summary, 2 search progress, 3 everything. STRATA_VERBOSE / "verbose".
    int verbose = 0;

    // Defaults, then STRATA_CONFIG, then STRATA_* variables. Throws
    // Halide::CompileError naming the variable or key on a bad value.
    static Params from_environment();
    // Applies the keys of a JSON object; `source` names it in errors.
    void apply_json(const std::string &json_text, const std::string &source);
    // One line listing every field, for logs and the schedule source header.
    std::string to_string() const;
};

}  // namespace strata::autoscheduler
