// Device: the CUDA GPUs of this machine, found through the CUDA driver API
// loaded at run time (dlopen of libcuda.so.1), so that nothing here links
// against CUDA and a machine without a GPU or driver simply reports
// "no CUDA device" — and the GpuSpec that describes a device to the cost model.
//
// Example:
//   CudaDevices found = query_cuda_devices();
//   if (found.devices.empty()) std::printf("%s\n", found.problem.c_str());
//   else std::printf("%s: %s\n", found.devices[0].name.c_str(), device_spec(found.devices[0]).name.c_str());
#pragma once

#include "strata/costmodel/GpuSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::runtime {

struct CudaDeviceInfo {
    int ordinal = 0;
    std::string name;  // as the driver reports it, e.g. "NVIDIA H200"
    int sm_count = 0;
    int compute_capability = 0;  // major * 10 + minor
    int clock_khz = 0;
    int memory_clock_khz = 0;
    int memory_bus_width_bits = 0;
    int64_t l2_cache_bytes = 0;
    int64_t total_memory_bytes = 0;
};

struct CudaDevices {
    std::vector<CudaDeviceInfo> devices;
    int driver_version = 0;  // e.g. 12040 for CUDA 12.4
    // Why `devices` is empty, e.g. "no CUDA device: cannot load libcuda.so.1 (...)".
    std::string problem;
};

// Never throws: problems are reported in `problem`. `library` is the driver
// to load (tests pass a stand-in).
CudaDevices query_cuda_devices(const std::string &library = "libcuda.so.1");

// The spec of a device: the table's entry for its name when the SM count
// agrees; with the SM count (and name) changed when it does not (a MIG
// slice); else the table's GPU of its compute capability with the device's
// SM count, clock and L2 size. Throws std::invalid_argument when neither its
// name nor its compute capability is known.
costmodel::GpuSpec device_spec(const CudaDeviceInfo &device);

}  // namespace strata::runtime
