//===- GpuSpecTable.cpp - the built-in GPUs and how to look them up -------===//
//
// Sources, cited per number below by these tags:
//   [CC]    CUDA C++ Programming Guide, "Technical Specifications per Compute
//           Capability" (threads, warps, blocks, registers, shared memory per
//           SM and per block, grid/block dimension limits) and "Arithmetic
//           Instructions" (FP32 results and special-function results per
//           clock per SM).
//   [OCC]   CUDA Occupancy Calculator: register allocation unit 256 per warp
//           for compute capability 7.0-9.0.
//   [V100]  NVIDIA Tesla V100 GPU Architecture whitepaper (v1.1), Table 1:
//           Tesla V100 SXM2 80 SMs, 1530 MHz boost, 15.7 TFLOPS FP32, 6144 KB
//           L2, 900 GB/s HBM2.
//   [A100]  NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs,
//           1410 MHz boost, 40 MB L2, L2 read bandwidth 5120 B/clk vs
//           V100's 2048 B/clk; A100 80GB datasheet: 2039 GB/s HBM2e (SXM4),
//           19.5 TFLOPS FP32.
//   [H100]  NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5
//           132 SMs, 128 FP32 lanes/SM, 50 MB L2; H100 datasheet: 3.35 TB/s
//           HBM3 (SXM), 67 TFLOPS FP32 (=> 1980 MHz boost: 132*128*2*1.98e9).
//   [H200]  NVIDIA H200 datasheet: same GH100 configuration as H100 SXM
//           (132 SMs, 67 TFLOPS FP32), 141 GB HBM3e at 4.8 TB/s.
//   Device memory sizes are the datasheets' (V100 32 GB, A100 80 GB, H100
//   80 GB, H200 141 GB, L40S 48 GB, RTX 4090 24 GB).
//   [ADA]   NVIDIA Ada Lovelace (AD102) architecture whitepaper: 128 FP32
//           lanes per SM, 128 KB L1/shared per SM, 96 MB L2 on full AD102.
//   [L40S]  NVIDIA L40S datasheet: 142 SMs (18,176 CUDA cores), 864 GB/s
//           GDDR6, 91.6 TFLOPS FP32, 2520 MHz boost; 96 MB L2 (full AD102
//           L2 with 142 SMs, as the L40/RTX 6000 Ada).
//   [4090]  NVIDIA GeForce RTX 4090 specifications: 128 SMs (16,384 CUDA
//           cores), 2520 MHz boost, 72 MB L2, 1008 GB/s GDDR6X, 82.6 TFLOPS.
//   [L2EST] No vendor figure for the L2 bandwidth of GH100/AD102: we assume
//           the GA100 width of 5120 B/clk at the boost clock. It is a peak;
//           microbenchmarks reach 60-75% of such peaks, a gap that the
//           learned per-term coefficients absorb.
//   [LAUNCH] kernel_launch_seconds keeps the GpuSpec default (4 us), a typical
//           measured launch-to-launch latency, not a vendor figure; the learned
//           launch coefficient corrects it per GPU.
//   [CHAIN] dependent_step_cycles and l1_miss_latency_seconds keep the GpuSpec
//           defaults, solved from two scans timed on an H200 (docs/
//           measurements.md: the eleventh session's kernel times, the
//           twentieth session's fit): iir_blur's blur_y.s2, 2559 steps that
//           each load a new row, 967 us (378 ns a step); hist's cdf.s1, 255
//           steps along one row of ints (a new sector every eighth step),
//           16.1 us. A step that hits L1 takes 36 cycles (18 ns at 1.98 GHz,
//           about an L1 hit's latency), a miss adds 360 ns. The other GPUs
//           take the same cycles and latency: no measurement of theirs.
//
// Peak FP32 rates derived from these numbers (2 * lanes * SMs * clock) are
// checked against the datasheet TFLOPS in GpuSpecTableTest.cpp.
//===----------------------------------------------------------------------===//
#include "strata/costmodel/GpuSpec.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace strata::costmodel {

namespace {

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * 1024;
constexpr double GHz = 1e9;
constexpr double GBps = 1e9;
constexpr int64_t GB = 1000 * 1000 * 1000;  // memory sizes as the datasheets give them

// The per-SM limits shared by every GPU of one compute capability [CC].
GpuSpec capability_limits(int capability) {
    GpuSpec s;
    s.compute_capability = capability;
    s.warp_size = 32;
    s.max_threads_per_block = 1024;
    s.max_grid_dim_x = 2147483647;
    s.max_grid_dim_yz = 65535;
    s.max_block_dim_xy = 1024;
    s.max_block_dim_z = 64;
    s.registers_per_sm = 65536;
    s.max_registers_per_thread = 255;
    s.register_allocation_unit = 256;  // [OCC]
    s.shared_memory_per_block = 48 * KiB;
    s.shared_memory_banks = 32;
    s.shared_memory_bank_bytes = 4;
    s.global_memory_sector_bytes = 32;
    s.global_memory_cache_line_bytes = 128;
    s.sfu_lanes_per_sm = 16;  // [CC] rsqrt/log2/exp2/sin/cos: 16 results per clock per SM on 7.x-9.0
    switch (capability) {
    case 70:
        s.max_threads_per_sm = 2048;
        s.max_warps_per_sm = 64;
        s.max_blocks_per_sm = 32;
        s.shared_memory_per_sm = 96 * KiB;
        s.shared_memory_per_block_optin = 96 * KiB;
        s.fp32_lanes_per_sm = 64;
        break;
    case 80:
        s.max_threads_per_sm = 2048;
        s.max_warps_per_sm = 64;
        s.max_blocks_per_sm = 32;
        s.shared_memory_per_sm = 164 * KiB;
        s.shared_memory_per_block_optin = 163 * KiB;
        s.fp32_lanes_per_sm = 64;
        break;
    case 89:
        s.max_threads_per_sm = 1536;
        s.max_warps_per_sm = 48;
        s.max_blocks_per_sm = 24;
        s.shared_memory_per_sm = 100 * KiB;
        s.shared_memory_per_block_optin = 99 * KiB;
        s.fp32_lanes_per_sm = 128;
        break;
    case 90:
        s.max_threads_per_sm = 2048;
        s.max_warps_per_sm = 64;
        s.max_blocks_per_sm = 32;
        s.shared_memory_per_sm = 228 * KiB;
        s.shared_memory_per_block_optin = 227 * KiB;
        s.fp32_lanes_per_sm = 128;
        break;
    default:
        throw std::logic_error("GpuSpecTable: no per-SM limits for compute capability " + std::to_string(capability));
    }
    return s;
}

struct Product {
    const char *name;
    const char *marketing_name;
    int capability;
    int sm_count;
    double boost_clock_hz;
    int64_t l2_bytes;
    double dram_bytes_per_second;
    double l2_bytes_per_clock;
    int64_t memory_bytes;
};

// clang-format off
constexpr Product kProducts[] = {
    // name       marketing name (as the CUDA driver reports it)   cc  SMs  boost clock     L2          DRAM bandwidth    L2 B/clk  memory
    {"v100",    "Tesla V100-SXM2-32GB",    70,  80, 1.530 * GHz,  6 * MiB,  900 * GBps,  2048,  32 * GB},  // [V100], [A100] (L2 B/clk)
    {"a100",    "NVIDIA A100-SXM4-80GB",   80, 108, 1.410 * GHz, 40 * MiB, 2039 * GBps,  5120,  80 * GB},  // [A100]
    {"h100",    "NVIDIA H100 80GB HBM3",   90, 132, 1.980 * GHz, 50 * MiB, 3350 * GBps,  5120,  80 * GB},  // [H100], [L2EST]
    {"h200",    "NVIDIA H200",             90, 132, 1.980 * GHz, 50 * MiB, 4800 * GBps,  5120, 141 * GB},  // [H200], [L2EST]
    {"l40s",    "NVIDIA L40S",             89, 142, 2.520 * GHz, 96 * MiB,  864 * GBps,  5120,  48 * GB},  // [L40S], [ADA], [L2EST]
    {"rtx4090", "NVIDIA GeForce RTX 4090", 89, 128, 2.520 * GHz, 72 * MiB, 1008 * GBps,  5120,  24 * GB},  // [4090], [ADA], [L2EST]
};

// Other names the same products go by: other memory sizes of the same SXM
// part (same SMs, clocks and bandwidth) and common short forms.
constexpr struct { const char *alias; const char *name; } kAliases[] = {
    {"Tesla V100-SXM2-16GB", "v100"},
    {"v100-sxm2", "v100"},
    {"a100-sxm4-80gb", "a100"},
    {"h100-sxm", "h100"},
    {"h100-sxm5", "h100"},
    {"h200-sxm", "h200"},
    {"NVIDIA H200 141GB HBM3e", "h200"},
    {"rtx-4090", "rtx4090"},
};
// clang-format on

GpuSpec make_spec(const Product &p) {
    GpuSpec s = capability_limits(p.capability);
    s.name = p.name;
    s.marketing_name = p.marketing_name;
    s.sm_count = p.sm_count;
    s.boost_clock_hz = p.boost_clock_hz;
    s.l2_cache_bytes = p.l2_bytes;
    s.dram_bandwidth_bytes_per_second = p.dram_bytes_per_second;
    s.device_memory_bytes = p.memory_bytes;
    s.l2_bandwidth_bytes_per_second = p.l2_bytes_per_clock * p.boost_clock_hz;
    return s;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

std::string trim(const std::string &text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::string GpuSpec::known_names() {
    std::string list;
    for (const GpuSpec &spec : GpuSpec::known()) list += (list.empty() ? "" : ", ") + spec.name;
    return list;
}

const std::vector<GpuSpec> &GpuSpec::known() {
    static const std::vector<GpuSpec> table = [] {
        std::vector<GpuSpec> specs;
        for (const Product &p : kProducts) specs.push_back(make_spec(p));
        return specs;
    }();
    return table;
}

const GpuSpec &GpuSpec::by_name(const std::string &name) {
    const std::string key = lower(trim(name));
    for (const GpuSpec &spec : known()) {
        if (key == spec.name || key == lower(spec.marketing_name)) return spec;
    }
    for (const auto &alias : kAliases) {
        if (key == lower(alias.alias)) return by_name(alias.name);
    }
    throw std::invalid_argument("unknown GPU '" + name + "'; known GPUs: " + known_names() +
                                " (or describe it in a JSON spec file)");
}

const GpuSpec &GpuSpec::for_compute_capability(int capability, bool *exact) {
    // One representative per capability: the data-center part. Other
    // capabilities (Halide's CUDA target names 30 to 86) get the newest
    // representative not newer than they are — the oldest one below 70.
    static constexpr std::pair<int, const char *> kRepresentatives[] = {
        {70, "v100"}, {80, "a100"}, {89, "l40s"}, {90, "h100"}};
    const char *name = kRepresentatives[0].second;
    for (const auto &[cc, representative] : kRepresentatives) {
        if (cc <= capability) name = representative;
    }
    if (exact) {
        *exact = std::any_of(std::begin(kRepresentatives), std::end(kRepresentatives),
                             [&](const auto &r) { return r.first == capability; });
    }
    return by_name(name);
}

const GpuSpec &GpuSpec::default_spec() {
    // Strata's default CUDA target is sm_80 (host-cuda-cuda_capability_80).
    return by_name("a100");
}

}  // namespace strata::costmodel
