#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>

using namespace strata::costmodel;

TEST_CASE("the table holds the six GPUs of the issue, each with consistent per-SM limits") {
    std::set<std::string> names;
    for (const GpuSpec &spec : GpuSpec::known()) {
        CAPTURE(spec.name);
        names.insert(spec.name);
        CHECK(spec.max_warps_per_sm * spec.warp_size == spec.max_threads_per_sm);
        CHECK(spec.shared_memory_per_block <= spec.shared_memory_per_block_optin);
        CHECK(spec.shared_memory_per_block_optin <= spec.shared_memory_per_sm);
        CHECK(spec.l2_bandwidth_bytes_per_second > spec.dram_bandwidth_bytes_per_second);
        CHECK(spec.sm_count > 0);
        CHECK(!spec.marketing_name.empty());
    }
    CHECK(names == std::set<std::string>{"v100", "a100", "h100", "h200", "l40s", "rtx4090"});
}

TEST_CASE("peak FP32 rates derived from the table match the datasheets") {
    // Datasheet TFLOPS (FP32, non-tensor), see the sources in GpuSpecTable.cpp.
    const std::pair<const char *, double> datasheet[] = {{"v100", 15.7}, {"a100", 19.5}, {"h100", 67.0},
                                                         {"h200", 67.0}, {"l40s", 91.6}, {"rtx4090", 82.6}};
    for (const auto &[name, tflops] : datasheet) {
        CAPTURE(name);
        CHECK(GpuSpec::by_name(name).fp32_flops_per_second() / 1e12 == doctest::Approx(tflops).epsilon(0.01));
    }
}

TEST_CASE("architectural differences between generations are in the table") {
    CHECK(GpuSpec::by_name("rtx4090").max_threads_per_sm == 1536);  // Ada: 48 warps per SM
    CHECK(GpuSpec::by_name("h100").shared_memory_per_block_optin == 227 * 1024);
    CHECK(GpuSpec::by_name("v100").fp32_lanes_per_sm == 64);
    CHECK(GpuSpec::by_name("h200").dram_bandwidth_bytes_per_second >
          GpuSpec::by_name("h100").dram_bandwidth_bytes_per_second);
    CHECK(GpuSpec::by_name("h200").sm_count == GpuSpec::by_name("h100").sm_count);
}

TEST_CASE("lookup by name is case-insensitive and accepts the names a CUDA driver reports") {
    CHECK(GpuSpec::by_name("A100").name == "a100");
    CHECK(GpuSpec::by_name("  h200 ").name == "h200");
    CHECK(GpuSpec::by_name("NVIDIA H200").name == "h200");
    CHECK(GpuSpec::by_name("nvidia a100-sxm4-80gb").name == "a100");
    CHECK(GpuSpec::by_name("NVIDIA H100 80GB HBM3").name == "h100");
    CHECK(GpuSpec::by_name("Tesla V100-SXM2-16GB").name == "v100");
    CHECK(GpuSpec::by_name("NVIDIA GeForce RTX 4090").name == "rtx4090");
    CHECK(GpuSpec::by_name("NVIDIA L40S").name == "l40s");
}

TEST_CASE("an unknown name is refused with the list of known ones") {
    try {
        GpuSpec::by_name("NVIDIA A100-SXM4-40GB");  // different DRAM bandwidth: not silently the 80GB part
        FAIL("expected an exception");
    } catch (const std::invalid_argument &e) {
        const std::string message = e.what();
        CHECK(message.find("NVIDIA A100-SXM4-40GB") != std::string::npos);
        CHECK(message.find("a100, ") != std::string::npos);
        CHECK(message.find("rtx4090") != std::string::npos);
    }
}

TEST_CASE("compute capabilities map to their data-center representative") {
    CHECK(GpuSpec::for_compute_capability(70).name == "v100");
    CHECK(GpuSpec::for_compute_capability(80).name == "a100");
    CHECK(GpuSpec::for_compute_capability(89).name == "l40s");
    CHECK(GpuSpec::for_compute_capability(90).name == "h100");
    bool exact = false;
    CHECK(GpuSpec::for_compute_capability(80, &exact).name == "a100");
    CHECK(exact);
}

TEST_CASE("every capability Halide's CUDA target names gets the nearest older GPU, and says so") {
    const std::pair<int, const char *> expected[] = {{30, "v100"}, {32, "v100"}, {35, "v100"}, {50, "v100"},
                                                     {61, "v100"}, {75, "v100"}, {86, "a100"}};
    for (const auto &[capability, name] : expected) {
        bool exact = true;
        CHECK(GpuSpec::for_compute_capability(capability, &exact).name == name);
        CHECK_FALSE(exact);
    }
}

TEST_CASE("every built-in GPU has its device memory") {
    CHECK(GpuSpec::by_name("h200").device_memory_bytes == 141'000'000'000);
    for (const GpuSpec &spec : GpuSpec::known()) CHECK(spec.device_memory_bytes > 8'000'000'000);
}

TEST_CASE("the default GPU is the A100, matching the default sm_80 target") {
    CHECK(GpuSpec::default_spec().name == "a100");
    CHECK(GpuSpec::default_spec().compute_capability == 80);
}
