// GpuSpec: the architectural numbers of one GPU that the cost model needs —
// parallelism limits, memory hierarchy sizes and bandwidths, clocks and
// arithmetic rates — and how to select one: by name, from the CUDA compute
// capability of a Halide target, from a JSON file, or the default.
//
// Every number in the built-in table cites its source in GpuSpecTable.cpp.
//
// Example:
//   const GpuSpec &a100 = GpuSpec::by_name("a100");
//   GpuSpec custom = GpuSpec::from_json_file("my_gpu.json");
//   double peak = a100.fp32_flops_per_second();
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::costmodel {

inline constexpr const char *kGpuSpecSchema = "strata.gpu_spec.v1";

struct GpuSpec {
    std::string name;          // canonical lower-case key, e.g. "a100"
    std::string marketing_name;  // e.g. "NVIDIA A100-SXM4-80GB"
    int compute_capability = 80;   // major * 10 + minor

    // Parallelism.
    int sm_count = 0;
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int max_threads_per_sm = 0;
    int max_warps_per_sm = 0;
    int max_blocks_per_sm = 0;
    int64_t max_grid_dim_x = 2147483647;
    int max_grid_dim_yz = 65535;
    int max_block_dim_xy = 1024;
    int max_block_dim_z = 64;

    // Registers.
    int registers_per_sm = 65536;
    int max_registers_per_thread = 255;
    int register_allocation_unit = 256;  // registers are granted per warp in units of this many

    // Shared memory.
    int64_t shared_memory_per_block = 48 * 1024;          // without opt-in
    int64_t shared_memory_per_block_optin = 48 * 1024;    // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int64_t shared_memory_per_sm = 0;
    int shared_memory_banks = 32;
    int shared_memory_bank_bytes = 4;

    // Memory hierarchy.
    int64_t device_memory_bytes = 0;  // what a pipeline's buffers must fit in
    int64_t l2_cache_bytes = 0;
    double dram_bandwidth_bytes_per_second = 0;
    double l2_bandwidth_bytes_per_second = 0;  // aggregate
    int global_memory_sector_bytes = 32;
    int global_memory_cache_line_bytes = 128;
    // A scan's step waits for the value the step before stored: the cycles a
    // step takes when its loads hit L1 (the load, the arithmetic, the
    // store), and what a step's load that misses L1 adds to it.
    double dependent_step_cycles = 36;
    double l1_miss_latency_seconds = 360e-9;

    // Clocks and arithmetic.
    double boost_clock_hz = 0;
    int fp32_lanes_per_sm = 0;  // FP32 FMA units per SM; one FMA = 2 FLOP
    int sfu_lanes_per_sm = 16;  // special-function units (exp, log, rsqrt ...) per SM

    // Launch overhead of one kernel, host to device, in seconds.
    double kernel_launch_seconds = 4e-6;

    double fp32_flops_per_second() const { return 2.0 * fp32_lanes_per_sm * sm_count * boost_clock_hz; }

    // The built-in table (v100, a100, h100, h200, l40s, rtx4090, ...).
    static const std::vector<GpuSpec> &known();
    // Their names, comma-separated (for error messages).
    static std::string known_names();
    // Case-insensitive lookup by `name` or by marketing name (as a CUDA
    // driver reports it); throws std::invalid_argument listing the known names.
    static const GpuSpec &by_name(const std::string &name);
    // The spec for a Halide target's cuda_capability_NN (80 → a100, 90 →
    // h100, ...); a capability without its own GPU gets the nearest older one
    // (86 → a100), and `exact` (if given) says which happened.
    static const GpuSpec &for_compute_capability(int capability, bool *exact = nullptr);
    // The documented default: a100, matching Strata's default CUDA target (sm_80).
    static const GpuSpec &default_spec();
    // A spec from JSON: either {"base": "<known name>", ...overrides} or a full spec.
    // Throws std::runtime_error naming the file and the offending field (or
    // the line of a syntax error).
    static GpuSpec from_json_file(const std::string &path);
    static GpuSpec from_json_text(const std::string &text, const std::string &source_name);
    static GpuSpec from_json(const nlohmann::ordered_json &json, const std::string &source_name);
    // A path ending in ".json" is read as a spec file, anything else is a name (by_name).
    static GpuSpec from_name_or_file(const std::string &name_or_path);
    // Every field, as a full spec that from_json() reads back unchanged.
    nlohmann::ordered_json to_json() const;
    std::string to_json_text() const;

    // The hardware numbers that differ from `other`'s, e.g. "sm_count 108 vs 132"
    // (names are labels and not compared).
    std::vector<std::string> differences(const GpuSpec &other) const;
};

}  // namespace strata::costmodel
