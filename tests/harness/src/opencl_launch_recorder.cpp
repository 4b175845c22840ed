// Linked into app check executables with -Wl,--wrap=halide_opencl_run: every
// kernel launch of the pipeline under test is recorded in the LaunchLog,
// then handed to Halide's OpenCL runtime unchanged.
#include "strata/harness/LaunchLog.h"

#include <cstddef>
#include <cstdint>

extern "C" int __real_halide_opencl_run(void *user_context, void *state_ptr, const char *entry_name, int blocks_x,
                                        int blocks_y, int blocks_z, int threads_x, int threads_y, int threads_z,
                                        int shared_mem_bytes, size_t arg_sizes[], void *args[], int8_t arg_is_buffer[]);

extern "C" int __wrap_halide_opencl_run(void *user_context, void *state_ptr, const char *entry_name, int blocks_x,
                                        int blocks_y, int blocks_z, int threads_x, int threads_y, int threads_z,
                                        int shared_mem_bytes, size_t arg_sizes[], void *args[],
                                        int8_t arg_is_buffer[]) {
    const int64_t grid[3] = {blocks_x, blocks_y, blocks_z};
    strata::harness::record_launch(entry_name, grid, int64_t(threads_x) * threads_y * threads_z, shared_mem_bytes);
    return __real_halide_opencl_run(user_context, state_ptr, entry_name, blocks_x, blocks_y, blocks_z, threads_x,
                                    threads_y, threads_z, shared_mem_bytes, arg_sizes, args, arg_is_buffer);
}
