// LaunchLog: the GPU kernel launches a checked pipeline made — grid and
// block size and shared memory per block as its own host code computed them — so the
// harness can report and bound what a schedule asks of the GPU even when the
// sizes are only known at run time (Halide sizes shared memory per launch).
//
// The check executables link opencl_launch_recorder.cpp with
// -Wl,--wrap=halide_opencl_run, which records every launch here before
// passing it on to the real runtime.
//
// Example:
//   strata::harness::clear_launches();
//   pipeline(...);
//   for (const auto &[name, k] : strata::harness::launches()) std::printf("%s %lld\n", name.c_str(), k.max_shared_bytes);
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace strata::harness {

struct KernelLaunches {
    int64_t launches = 0;
    int64_t max_threads_per_block = 0;
    int64_t max_shared_bytes = 0;
    int64_t max_blocks = 0;
    int64_t max_grid[3] = {0, 0, 0};  // blocks along x, y and z
};

void record_launch(const std::string &kernel, const int64_t grid[3], int64_t threads_per_block, int64_t shared_bytes);
void clear_launches();
const std::map<std::string, KernelLaunches> &launches();

}  // namespace strata::harness
