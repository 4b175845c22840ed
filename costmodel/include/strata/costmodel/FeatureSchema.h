// FeatureSchema: the names, order and version of the per-stage features that
// describe a scheduled pipeline stage, and of the analytic cost terms derived
// from them. Logs and weight files store these names and the version, and
// refuse to load when they differ, so a model is never applied to features
// it was not trained on.
//
// A "stage" is one definition (pure or update) of a Func that is not inlined.
// Algorithm features are per point of the stage; schedule features describe
// the whole execution of the stage under a schedule, on a given GPU.
//
// Example:
//   FeatureVector f{};
//   f[index(Feature::Blocks)] = 1024;
//   std::printf("%s\n", feature_name(Feature::Blocks));   // "blocks"
#pragma once

#include <array>
#include <string>
#include <vector>

namespace strata::costmodel {

// Bump when a feature or term is added, removed, reordered or redefined.
// 2: l2_bytes are the bytes that miss L1; 3: loads count after register reuse;
// 4: dependent_steps, dependent_step_misses and latency_seconds (a scan's
// chain of steps through memory).
inline constexpr int kFeatureSchemaVersion = 4;
// The oldest version whose logs and featurizations this build still reads:
// a feature added since is read as 0, which is what the model assumed of
// every stage before the feature existed (feature_added_in()).
inline constexpr int kOldestReadableFeatureSchemaVersion = 3;

// X(enumerator, "name")
#define STRATA_FEATURES(X)                                                                    \
    /* The algorithm, per point computed. */                                                  \
    X(OpsAddSub, "ops_add_sub")                                                               \
    X(OpsMul, "ops_mul")                                                                      \
    X(OpsDivMod, "ops_div_mod")                                                               \
    X(OpsMinMax, "ops_min_max")                                                               \
    X(OpsCompareSelect, "ops_compare_select")                                                 \
    X(OpsTranscendental, "ops_transcendental")                                                \
    X(OpsCast, "ops_cast")                                                                    \
    X(OpsBitwise, "ops_bitwise")                                                              \
    X(LoadsPerPoint, "loads_per_point")                                                       \
    X(BytesPerPoint, "bytes_per_point")                                                       \
    X(IsUpdate, "is_update")                                                                  \
    X(ReductionPointsPerPoint, "reduction_points_per_point")                                  \
    X(Producers, "producers")                                                                 \
    /* The schedule: how much work, and where. */                                             \
    X(PointsComputed, "points_computed")                                                      \
    X(RecomputeRatio, "recompute_ratio")                                                      \
    X(InlinedCalls, "inlined_calls")                                                          \
    X(IsKernelRoot, "is_kernel_root")                                                         \
    X(KernelLaunches, "kernel_launches")                                                      \
    X(Blocks, "blocks")                                                                       \
    X(ThreadsPerBlock, "threads_per_block")                                                   \
    X(ActiveThreadFraction, "active_thread_fraction")                                         \
    X(SerialIterationsPerThread, "serial_iterations_per_thread")                              \
    X(UnrollFactor, "unroll_factor")                                                          \
    X(RegistersPerThread, "registers_per_thread")                                             \
    X(SharedBytesPerBlock, "shared_bytes_per_block")                                          \
    X(ResidentBlocksPerSm, "resident_blocks_per_sm")                                          \
    X(Occupancy, "occupancy")                                                                 \
    X(Waves, "waves")                                                                         \
    X(WaveEfficiency, "wave_efficiency")                                                      \
    /* A scan's chain: steps of one thread that each wait for memory the */                  \
    /* step before stored, and of those the steps whose loads miss L1. */                    \
    X(DependentSteps, "dependent_steps")                                                      \
    X(DependentStepMisses, "dependent_step_misses")                                           \
    /* The schedule: traffic and operations, totals over the stage. */                        \
    X(Flops, "flops")                                                                         \
    X(TranscendentalOps, "transcendental_ops")                                                \
    X(GlobalLoadSectors, "global_load_sectors")                                               \
    X(GlobalStoreSectors, "global_store_sectors")                                             \
    X(GlobalLoadBytesUseful, "global_load_bytes_useful")                                      \
    X(GlobalStoreBytesUseful, "global_store_bytes_useful")                                    \
    X(DramBytes, "dram_bytes")                                                                \
    X(L2Bytes, "l2_bytes")                                                                    \
    X(SharedLoadRequests, "shared_load_requests")                                             \
    X(SharedStoreRequests, "shared_store_requests")                                           \
    X(SharedBankConflictWays, "shared_bank_conflict_ways")                                    \
    X(AtomicOps, "atomic_ops")                                                                \
    X(BarriersPerBlock, "barriers_per_block")                                                 \
    X(WorkingSetBytesPerBlock, "working_set_bytes_per_block")

// The analytic model's additive time components of a stage, in seconds.
#define STRATA_TERMS(X)                     \
    X(Compute, "compute_seconds")           \
    X(Dram, "dram_seconds")                 \
    X(L2, "l2_seconds")                     \
    X(Shared, "shared_seconds")             \
    X(Latency, "latency_seconds")           \
    X(Atomic, "atomic_seconds")             \
    X(Sync, "sync_seconds")                 \
    X(Launch, "launch_seconds")

#define STRATA_ENUMERATOR(e, name) e,
enum class Feature : int { STRATA_FEATURES(STRATA_ENUMERATOR) Count };
enum class Term : int { STRATA_TERMS(STRATA_ENUMERATOR) Count };
#undef STRATA_ENUMERATOR

inline constexpr int kNumFeatures = static_cast<int>(Feature::Count);
inline constexpr int kNumTerms = static_cast<int>(Term::Count);

constexpr int index(Feature f) { return static_cast<int>(f); }
constexpr int index(Term t) { return static_cast<int>(t); }

using FeatureVector = std::array<double, kNumFeatures>;
using TermVector = std::array<double, kNumTerms>;

const char *feature_name(Feature f);
// The schema version that introduced `f` (1 for the original features).
int feature_added_in(Feature f);
const char *term_name(Term t);
const std::vector<std::string> &feature_names();
const std::vector<std::string> &term_names();

// The features of one stage of a scheduled pipeline. Stages that run in the
// same GPU kernel share a kernel index; their times overlap (see CostModel.h).
struct StageFeatures {
    std::string name;   // "<func>.s<stage>", e.g. "blur_x.s0"
    int kernel = 0;
    FeatureVector features{};
};

using ScheduleFeatures = std::vector<StageFeatures>;

}  // namespace strata::costmodel
