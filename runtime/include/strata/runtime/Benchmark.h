// Benchmark: times an AOT-compiled pipeline the way the cost model needs —
// outputs at the sizes the pipeline was scheduled for (its estimates) unless
// told otherwise, inputs sized by a bounds query and filled with seeded
// random values, warm-up runs (first-call module loading, input upload),
// then N samples each ending in a device synchronization of every output, so
// that asynchronous GPU work is inside the measured time. Reports the
// minimum and the median.
//
// Example:
//   const RegisteredPipeline &p = find_registered_pipeline("unsharp");
//   BenchmarkOptions options;
//   options.output_extents["output"] = {256, 160, 3};
//   BenchmarkResult r = run_benchmark(p.argv, PipelineSignature::from_metadata(p.metadata), options);
//   std::printf("min %.3f ms, median %.3f ms\n", r.times.min_ms, r.times.median_ms);
#pragma once

#include "strata/runtime/PipelineSignature.h"
#include "strata/runtime/ProfileLog.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata::runtime {

struct BenchmarkOptions {
    int warmups = 3;
    int samples = 20;
    uint64_t seed = 1;  // for the input contents
    // Overrides of output sizes (default: the pipeline's estimates), and
    // sizes of inputs the bounds query cannot determine.
    std::map<std::string, std::vector<int>> output_extents;
    std::map<std::string, std::vector<int>> input_extents;
    std::map<std::string, double> scalars;  // default: the generator's defaults
    // Halide's runtime allocates each intermediate device buffer at every
    // call and frees it after (cuMemAlloc/cuMemFree, by default). With this
    // set, its allocation cache is on for the runs (halide_reuse_device_allocations):
    // the steady state of a pipeline called in a loop, without those calls.
    bool reuse_device_allocations = false;
};

struct BenchmarkResult {
    std::string pipeline;
    std::string target;
    std::map<std::string, std::vector<int>> output_extents;  // as run
    std::map<std::string, std::vector<int>> input_extents;   // as run
    std::vector<double> samples_ms;                          // in the order measured
    ProfileTimes times;                                      // with the same samples
};

// Throws std::invalid_argument for bad options or sizes, std::runtime_error
// if the pipeline fails (with its Halide error code).
BenchmarkResult run_benchmark(ArgvFunction pipeline, const PipelineSignature &signature,
                              const BenchmarkOptions &options);

// "256x160x3" → {256, 160, 3}; throws std::invalid_argument naming `what` on bad text.
std::vector<int> parse_extents(const std::string &text, const std::string &what);

}  // namespace strata::runtime
