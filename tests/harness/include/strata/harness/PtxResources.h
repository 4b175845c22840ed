// PtxResources: what a CUDA build of a pipeline asks of the GPU, read without
// a GPU — the PTX that Halide embeds in a host object, ptxas's verbose report
// on it (registers, spills, static shared memory), and the launch parameters
// (block size, dynamic shared memory) from the lowered statement.
//
// Halide allocates GPU shared memory dynamically, so ptxas alone reports none;
// the launch expressions in the `.stmt` output carry it.
//
// Example:
//   auto ptx = extract_ptx_modules(read_file("app_cuda.o"));
//   auto kernels = parse_ptxas_verbose(ptxas_stderr);
//   auto launches = parse_cuda_launches(read_file("app_cuda.stmt"));
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::harness {

// Every PTX module embedded in an object file (text from the NVPTX banner to
// the terminating NUL).
std::vector<std::string> extract_ptx_modules(const std::string &object_bytes);

struct KernelResources {
    std::string name;
    int registers = 0;
    int barriers = 0;
    int64_t stack_frame_bytes = 0;
    int64_t spill_store_bytes = 0;
    int64_t spill_load_bytes = 0;
    int64_t static_shared_bytes = 0;
};

// Parses the output of `ptxas -v`; one entry per compiled entry function.
std::vector<KernelResources> parse_ptxas_verbose(const std::string &ptxas_output);

struct KernelLaunch {
    std::string kernel;
    // Each value is known when its expression in the statement is constant.
    std::optional<int64_t> blocks[3];
    std::optional<int64_t> threads[3];
    std::optional<int64_t> dynamic_shared_bytes;

    std::optional<int64_t> threads_per_block() const;
};

// The halide_cuda_run calls of a lowered statement (`-e stmt`), keeping for
// each kernel the largest known grid, block size and shared memory over its
// launches.
std::map<std::string, KernelLaunch> parse_cuda_launches(const std::string &stmt);

// The stage (a lowered report's kernel name, "cost_x.s1") whose kernel the
// PTX entry `ptx_kernel` is: Halide names an entry after its outermost GPU
// loop, "_kernel_" and the loop's name with '.' as '_'
// ("_kernel_cost_x_s1_cost_x_c_..."). The longest stage name that fits wins,
// so "cost.s0" never claims cost_x's kernel; nullopt when none fits.
std::optional<std::string> stage_of_kernel(const std::string &ptx_kernel, const std::vector<std::string> &stages);

// Evaluates an integer expression of literals, + - * / %, min/max, unary
// minus, parentheses and casts such as (int32); nullopt if it names anything
// else (a symbolic size).
std::optional<int64_t> evaluate_constant(const std::string &expression);

}  // namespace strata::harness
