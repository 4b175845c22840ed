#include "strata/runtime/Device.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <stdexcept>

using namespace strata::runtime;

namespace {

// Selects the behaviour of the stand-in driver for one test.
class FakeDriverMode {
public:
    explicit FakeDriverMode(const char *mode) { setenv("STRATA_FAKE_CUDA", mode, 1); }
    ~FakeDriverMode() { unsetenv("STRATA_FAKE_CUDA"); }
};

}  // namespace

TEST_CASE("the real driver either finds devices or says cleanly why not") {
    const CudaDevices found = query_cuda_devices();
    if (found.devices.empty()) {
        CHECK(found.problem.find("no CUDA device: ") == 0);
    } else {
        CHECK(found.problem.empty());
        CHECK(!found.devices[0].name.empty());
    }
}

TEST_CASE("a missing driver library means no CUDA device") {
    const CudaDevices found = query_cuda_devices("libstrata_no_such_driver.so.1");
    CHECK(found.devices.empty());
    CHECK(found.problem.find("no CUDA device: cannot load the CUDA driver libstrata_no_such_driver.so.1") == 0);
}

TEST_CASE("devices are read through the driver API") {
    FakeDriverMode mode("h200");
    const CudaDevices found = query_cuda_devices(STRATA_FAKE_CUDA_DRIVER);
    REQUIRE(found.devices.size() == 1);
    const CudaDeviceInfo &d = found.devices[0];
    CHECK(d.name == "NVIDIA H200");
    CHECK(d.sm_count == 132);
    CHECK(d.compute_capability == 90);
    CHECK(d.clock_khz == 1980000);
    CHECK(d.memory_clock_khz == 2619000);
    CHECK(d.memory_bus_width_bits == 6144);
    CHECK(d.total_memory_bytes == int64_t(141) << 30);
    CHECK(found.driver_version == 12040);
    CHECK(found.problem.empty());
    CHECK(device_spec(d).name == "h200");
}

TEST_CASE("driver failures are reported, not thrown") {
    {
        FakeDriverMode mode("none");
        const CudaDevices found = query_cuda_devices(STRATA_FAKE_CUDA_DRIVER);
        CHECK(found.devices.empty());
        CHECK(found.problem == "no CUDA device: the driver reports none");
    }
    {
        FakeDriverMode mode("broken");
        CHECK(query_cuda_devices(STRATA_FAKE_CUDA_DRIVER).problem ==
              "no CUDA device: cuInit failed with CUDA error 999 (CUDA_ERROR_UNKNOWN)");
    }
}

TEST_CASE("a MIG partition keeps its GPU's spec with its own SM count") {
    FakeDriverMode mode("mig");
    const strata::costmodel::GpuSpec spec = device_spec(query_cuda_devices(STRATA_FAKE_CUDA_DRIVER).devices.at(0));
    CHECK(spec.name == "h200-16sm");
    CHECK(spec.sm_count == 16);
    CHECK(spec.dram_bandwidth_bytes_per_second ==
          strata::costmodel::GpuSpec::by_name("h200").dram_bandwidth_bytes_per_second);
}

TEST_CASE("a device unknown by name is described from its compute capability") {
    FakeDriverMode mode("unknown");
    const strata::costmodel::GpuSpec spec = device_spec(query_cuda_devices(STRATA_FAKE_CUDA_DRIVER).devices.at(0));
    CHECK(spec.name == "nvidia-future-gpu");
    CHECK(spec.marketing_name == "NVIDIA Future GPU");
    CHECK(spec.compute_capability == 90);
    CHECK(spec.sm_count == 132);

    CudaDeviceInfo odd;
    odd.name = "NVIDIA Odd";
    odd.compute_capability = 75;
    CHECK_THROWS_WITH_AS(device_spec(odd), doctest::Contains("CUDA device 0 'NVIDIA Odd' is not in the GPU table"),
                         std::invalid_argument);
}
