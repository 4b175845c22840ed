// Params: every knob of the Strata autoscheduler in one place, with its
// default, its generator key, its environment variable and its JSON key.
//
// Where values come from, later sources winning:
//   1. the defaults below;
//   2. a JSON file of keys (the field names): `autoscheduler.config=<file>`,
//      else the file named by STRATA_CONFIG;
//   3. STRATA_* environment variables (one per field, named below);
//   4. the generator's `autoscheduler.<key>=<value>` parameters (Halide 21
//      passes them in AutoschedulerParams::extra).
// So a build that names a value explicitly always gets it, and the
// environment can still steer builds that do not (scripts, experiments).
// An unknown key or a bad value is a Halide::CompileError that names the
// source (file, variable or generator key) and lists the valid keys.
//
// Halide's Anderson2021-style `parallelism` is not a key: the GPU comes from
// `gpu` / `gpu_spec_file`, else from the target's CUDA capability, else the
// cost model's default (see GpuSpec.h).
//
// Example:
//   generator ... autoscheduler=Strata autoscheduler.beam_size=8 autoscheduler.seed=3
//   STRATA_BEAM_SIZE=8 generator ... autoscheduler=Strata        (same schedule)
//   Params p = Params::resolve({{"beam_size", "8"}});
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata::autoscheduler {

struct Params {
    // Beam search. "beam_size" / STRATA_BEAM_SIZE.
    int beam_size = 32;
    // Coarse-to-fine passes; pass k refines the tilings around pass k-1's
    // best schedule. "passes" / STRATA_PASSES.
    int passes = 2;
    // Seed of the sampling of candidate tilings; same seed, same schedule.
    // "seed" / STRATA_SEED.
    uint64_t seed = 0;
    // Tilings sampled per structural group of candidates (hierarchical
    // sampling). "samples_per_group" / STRATA_SAMPLES_PER_GROUP.
    int samples_per_group = 3;
    // Phase 1 decides inline vs. root for every Func; phase 2 revisits only the
    // most expensive ones. How many: 0 means ceil(log2(number of Funcs)) + 2.
    // "free_stages" / STRATA_FREE_STAGES.
    int free_stages = 0;
    // Two phases (1 = on): phase 1 decides inline vs. root for every Func,
    // phase 2 searches the full space for the most expensive kernels only.
    // Off: one search of the full space over every Func. "two_phase" / STRATA_TWO_PHASE.
    bool two_phase = true;
    // Hierarchical sampling of candidate tilings (1 = on); off: every legal
    // tiling is a candidate. "sampling" / STRATA_SAMPLING.
    bool sampling = true;
    // Memoize per-kernel features and prices across candidate schedules
    // (1 = on); off: every candidate is featurized and priced from scratch.
    // "memoize" / STRATA_MEMOIZE.
    bool memoize = true;
    // Threads that analyse the kernels of a beam step side by side, the
    // caller's included; 0: one per hardware thread, at most 8. The
    // schedule is the same whatever the count. "threads" / STRATA_THREADS.
    int threads = 0;
    // Threads per block at most. 256 keeps every kernel launchable whatever
    // register count ptxas picks (255 × 256 ≤ 64K registers per block);
    // raise it only for register-light pipelines.
    // "max_threads_per_block" / STRATA_MAX_THREADS_PER_BLOCK.
    int max_threads_per_block = 256;
    // Milliseconds the lowering probes of finalists dearer than the cheapest
    // may take in all (each is Halide lowering the whole pipeline; see
    // choose_finalist in Autoscheduler.cpp); 0: the longer of 30 s and the
    // beam search's own time. "finalist_probe_ms" / STRATA_FINALIST_PROBE_MS.
    int finalist_probe_ms = 0;
    // The predicted slowdown, in percent of the pipeline's time, that Strata
    // accepts in all for less code: kernels with unrolled tiles compute
    // their last tiles whole, shifted inwards, unroll fewer points, and
    // else get one checked copy (see CodeSize.h); 0: never.
    // "code_slowdown_pct" / STRATA_CODE_SLOWDOWN_PCT.
    int code_slowdown_pct = 1;
    // Parallelize reductions whose pure parallelism is too short for the GPU
    // (rfactor). "parallel_reductions" / STRATA_PARALLEL_REDUCTIONS.
    bool parallel_reductions = true;
    // GPU spec by name (e.g. "h200"); empty: from the target. "gpu" / STRATA_GPU.
    std::string gpu;
    // GPU spec from a JSON file (see GpuSpec.h). "gpu_spec_file" / STRATA_GPU_SPEC.
    std::string gpu_spec_file;
    // Learned-model weights; empty: the shipped default.
    // "weights" / STRATA_WEIGHTS.
    std::string weights;
    // "learned" (analytic terms × learned coefficients) or "analytic" (the
    // terms alone, for comparisons). "cost_model" / STRATA_COST_MODEL.
    std::string cost_model = "learned";
    // 0 quiet, 1 summary, 2 search progress, 3 everything (with each schedule
    // Halide lowers to check it). "verbose" / STRATA_VERBOSE.
    int verbose = 0;
    // 0: the search's best schedule. i ≥ 1: the i-th distinct schedule drawn
    // from all those the search priced (different fusions, placements and
    // tilings), deterministic for the seed — K runs with 0..K-1 give K
    // schedules of one pipeline to measure. "sample_index" / STRATA_SAMPLE_INDEX.
    int sample_index = 0;
    // A JSON file to write, when Halide lowers the pipeline, comparing the
    // lowered code with what the cost model priced (LoweredCheck.h); empty:
    // no check. "lowered_check" / STRATA_LOWERED_CHECK.
    std::string lowered_check;

    // Every source in order (see the top of this file). `generator_keys` are
    // the generator's autoscheduler.<key> values without the prefix; the key
    // "config" names the JSON file of step 2.
    static Params resolve(const std::map<std::string, std::string> &generator_keys = {});

    // Applies the keys of a JSON object; `source` names it in errors (syntax
    // errors give its line and column).
    void apply_json(const std::string &json_text, const std::string &source);
    // Applies one key given as text (a variable or a generator parameter);
    // `source` names it in errors.
    void apply_text(const std::string &key, const std::string &value, const std::string &source);

    // Every valid key, in declaration order.
    static std::vector<std::string> keys();
    // The environment variable of a key ("beam_size" → "STRATA_BEAM_SIZE").
    static std::string environment_variable(const std::string &key);
    // One line listing every field, for logs and the schedule source header.
    std::string to_string() const;
};

}  // namespace strata::autoscheduler
