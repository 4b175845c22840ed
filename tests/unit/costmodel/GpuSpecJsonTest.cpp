#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

using namespace strata::costmodel;

namespace {

// The full-spec form of a made-up GPU.
const char *kFullSpec = R"({
  "name": "toy", "compute_capability": 75, "sm_count": 40,
  "max_threads_per_sm": 1024, "max_warps_per_sm": 32, "max_blocks_per_sm": 16,
  "shared_memory_per_sm": 65536, "shared_memory_per_block_optin": 65536,
  "l2_cache_bytes": 4194304, "dram_bandwidth_bytes_per_second": 320e9,
  "l2_bandwidth_bytes_per_second": 1.2e12, "boost_clock_hz": 1.59e9, "fp32_lanes_per_sm": 64
})";

std::string error_of(const std::string &text) {
    try {
        GpuSpec::from_json_text(text, "spec.json");
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("a base spec with overrides keeps everything it does not override") {
    const GpuSpec spec = GpuSpec::from_json_text(R"({"base": "a100", "sm_count": 100})", "override.json");
    const GpuSpec &a100 = GpuSpec::by_name("a100");
    CHECK(spec.sm_count == 100);
    CHECK(spec.name == "a100-custom");
    CHECK(spec.dram_bandwidth_bytes_per_second == a100.dram_bandwidth_bytes_per_second);
    CHECK(spec.shared_memory_per_sm == a100.shared_memory_per_sm);

    const GpuSpec renamed =
        GpuSpec::from_json_text(R"({"base": "H200", "name": "h200-lowclock", "boost_clock_hz": 1.5e9})", "x");
    CHECK(renamed.name == "h200-lowclock");
    CHECK(renamed.boost_clock_hz == 1.5e9);
    CHECK(renamed.sm_count == 132);

    CHECK(GpuSpec::from_json_text(R"({"base": "v100"})", "x").name == "v100");
}

TEST_CASE("a full spec gives every hardware number") {
    const GpuSpec spec = GpuSpec::from_json_text(kFullSpec, "toy.json");
    CHECK(spec.name == "toy");
    CHECK(spec.sm_count == 40);
    CHECK(spec.max_threads_per_block == 1024);  // architectural default
    CHECK(spec.fp32_flops_per_second() == doctest::Approx(2 * 64 * 40 * 1.59e9));
}

TEST_CASE("errors name the file and the field") {
    CHECK(error_of(R"({"base": "a100", "sm_cont": 100})") ==
          "GPU spec spec.json: field 'sm_cont' is not a GPU spec field");
    CHECK(error_of(R"({"base": "a100", "sm_count": "many"})") ==
          "GPU spec spec.json: field 'sm_count' must be an integer, not \"many\"");
    CHECK(error_of(R"({"base": "a100", "sm_count": 10.5})") ==
          "GPU spec spec.json: field 'sm_count' must be an integer, not 10.5");
    CHECK(error_of(R"({"base": "a100", "boost_clock_hz": "fast"})").find("'boost_clock_hz' must be a number") !=
          std::string::npos);
    CHECK(error_of(R"({"base": "a100", "sm_count": 0})") == "GPU spec spec.json: field 'sm_count' must be positive");
    CHECK(error_of(R"({"base": "a100", "sm_count": 99999999999})").find("'sm_count' is out of range") !=
          std::string::npos);
    CHECK(error_of(R"({"base": "a100", "max_warps_per_sm": 48})").find("'max_warps_per_sm' times warp_size") !=
          std::string::npos);
    CHECK(error_of(R"({"base": "b200"})").find("field 'base' unknown GPU 'b200'") != std::string::npos);
    CHECK(error_of(R"({"base": 80})").find("field 'base' must be the name of a built-in GPU") != std::string::npos);
    CHECK(error_of(R"({"name": "toy", "sm_count": 40})").find("'compute_capability' is missing") != std::string::npos);
    CHECK(error_of("[1, 2]") == "GPU spec spec.json: must be a JSON object, not array");
    CHECK(error_of("{\"base\": ").find("GPU spec spec.json:1:10: not valid JSON (truncated?)") == 0);
}

TEST_CASE("corrupted specs name the line or the field: overflow, huge numbers, a foreign schema") {
    CHECK(error_of("{\"base\": \"a100\",\n \"sm_count\": 100,\n \"boost_clock_hz\": 1e999}")
              .find("GPU spec spec.json:3:") == 0);
    CHECK(error_of("{\"base\": \"a100\",\n \"boost_clock_hz\": 1e999}").find("a number too large for a double: '1e999'") !=
          std::string::npos);
    CHECK(error_of("{\"base\": \"a100\",\n \"sm_count\": NaN}").find("GPU spec spec.json:2:") == 0);
    CHECK(error_of("{\"base\": \"a100\",\n \"sm_count\": Infinity}").find("GPU spec spec.json:2:") == 0);
    CHECK(error_of(R"({"base": "a100", "dram_bandwidth_bytes_per_second": 1e300})") ==
          "GPU spec spec.json: field 'dram_bandwidth_bytes_per_second' is implausibly large: 1e+300 (at most 1e+15)");
    CHECK(error_of(R"({"base": "a100", "sm_count": 1e12})") ==
          "GPU spec spec.json: field 'sm_count' must be an integer, not 1000000000000.0");
    CHECK(error_of(R"({"base": "a100", "sm_count": 2000000})") ==
          "GPU spec spec.json: field 'sm_count' is implausibly large: 2000000 (at most 10000.0)");
    CHECK(error_of(R"({"base": "a100", "kernel_launch_seconds": -1e-6})") ==
          "GPU spec spec.json: field 'kernel_launch_seconds' must be positive");
    CHECK(error_of(R"({"schema": "strata.gpu_spec.v2", "base": "a100"})") ==
          "GPU spec spec.json: field 'schema' is \"strata.gpu_spec.v2\", this build reads \"strata.gpu_spec.v1\"");
    CHECK(error_of(R"({"base": "a100", "sm_count": [108]})") ==
          "GPU spec spec.json: field 'sm_count' must be an integer, not [108]");
    // Truncated mid-file: the line where the text stops.
    const std::string full = GpuSpec::by_name("h200").to_json_text();
    const std::string cut = full.substr(0, full.size() / 2);
    const int lines = 1 + int(std::count(cut.begin(), cut.end(), '\n'));
    CHECK(error_of(cut).find("GPU spec spec.json:" + std::to_string(lines) + ":") == 0);
}

TEST_CASE("a spec's JSON names its schema, round-trips, and differences are listed by field") {
    const GpuSpec &h200 = GpuSpec::by_name("h200");
    const nlohmann::ordered_json json = h200.to_json();
    CHECK(json["schema"] == kGpuSpecSchema);
    CHECK(GpuSpec::from_json(json, "mem").differences(h200).empty());
    CHECK(GpuSpec::by_name("a100").differences(h200).front().find("compute_capability 80 vs 90") == 0);
    GpuSpec slower = h200;
    slower.name = "renamed";
    slower.kernel_launch_seconds = 5e-6;
    CHECK(slower.differences(h200) == std::vector<std::string>{"kernel_launch_seconds 5e-06 vs 4e-06"});
    CHECK(GpuSpec::from_name_or_file("h200").name == "h200");
}

TEST_CASE("specs are read from files, and a missing file is named") {
    const std::string path = "gpu_spec_json_test.json";
    {
        std::ofstream out(path);
        out << R"({"base": "rtx4090", "l2_cache_bytes": 1048576})";
    }
    CHECK(GpuSpec::from_json_file(path).l2_cache_bytes == 1048576);
    std::remove(path.c_str());
    CHECK_THROWS_WITH_AS(GpuSpec::from_json_file("/nonexistent/gpu.json"),
                         "GPU spec /nonexistent/gpu.json: cannot open the file", std::runtime_error);
}

TEST_CASE("a field the schema no longer has is read and ignored: the logs of its time stay readable") {
    // The H200 logs in docs/gpu carry dram_latency_seconds, a field of the
    // fitted model the project retired.
    GpuSpec logged = GpuSpec::by_name("h200");
    nlohmann::ordered_json json = logged.to_json();
    json["dram_latency_seconds"] = 6e-7;
    CHECK(GpuSpec::from_json(json, "h200.jsonl:1").differences(logged).empty());
    // A field no build ever had is still an error.
    json["dram_latency_second"] = 6e-7;
    CHECK_THROWS_WITH_AS(GpuSpec::from_json(json, "h200.jsonl:1"),
                         doctest::Contains("'dram_latency_second' is not a GPU spec field"), std::runtime_error);
}
