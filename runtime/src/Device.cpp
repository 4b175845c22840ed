#include "strata/runtime/Device.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace strata::runtime {

namespace {

// The few driver API entry points we use, with their C ABI (cuda.h).
using CUresult = int;
using CUdevice = int;
using cuInit_t = CUresult (*)(unsigned int);
using cuDriverGetVersion_t = CUresult (*)(int *);
using cuDeviceGetCount_t = CUresult (*)(int *);
using cuDeviceGet_t = CUresult (*)(CUdevice *, int);
using cuDeviceGetName_t = CUresult (*)(char *, int, CUdevice);
using cuDeviceGetAttribute_t = CUresult (*)(int *, int, CUdevice);
using cuDeviceTotalMem_t = CUresult (*)(size_t *, CUdevice);
using cuGetErrorName_t = CUresult (*)(CUresult, const char **);

constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorNoDevice = 100;
// CUdevice_attribute values (cuda.h).
constexpr int kClockRate = 13;
constexpr int kMultiprocessorCount = 16;
constexpr int kMemoryClockRate = 36;
constexpr int kGlobalMemoryBusWidth = 37;
constexpr int kL2CacheSize = 38;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

class Library {
public:
    explicit Library(const std::string &name) : handle_(::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
    ~Library() {
        if (handle_) ::dlclose(handle_);
    }
    Library(const Library &) = delete;
    Library &operator=(const Library &) = delete;

    bool loaded() const { return handle_ != nullptr; }

    template <typename F>
    F symbol(const char *name) const {
        return reinterpret_cast<F>(::dlsym(handle_, name));
    }

private:
    void *handle_;
};

}  // namespace

CudaDevices query_cuda_devices(const std::string &library_name) {
    CudaDevices result;
    Library library(library_name);
    if (!library.loaded()) {
        const char *why = ::dlerror();
        result.problem = "no CUDA device: cannot load the CUDA driver " + library_name + " (" + (why ? why : "?") + ")";
        return result;
    }
    const auto cuInit = library.symbol<cuInit_t>("cuInit");
    const auto cuDriverGetVersion = library.symbol<cuDriverGetVersion_t>("cuDriverGetVersion");
    const auto cuDeviceGetCount = library.symbol<cuDeviceGetCount_t>("cuDeviceGetCount");
    const auto cuDeviceGet = library.symbol<cuDeviceGet_t>("cuDeviceGet");
    const auto cuDeviceGetName = library.symbol<cuDeviceGetName_t>("cuDeviceGetName");
    const auto cuDeviceGetAttribute = library.symbol<cuDeviceGetAttribute_t>("cuDeviceGetAttribute");
    const auto cuDeviceTotalMem = library.symbol<cuDeviceTotalMem_t>("cuDeviceTotalMem_v2");
    const auto cuGetErrorName = library.symbol<cuGetErrorName_t>("cuGetErrorName");
    if (!cuInit || !cuDeviceGetCount || !cuDeviceGet || !cuDeviceGetName || !cuDeviceGetAttribute) {
        result.problem = "no CUDA device: " + library_name + " lacks the CUDA driver API entry points";
        return result;
    }
    auto failure = [&](const char *call, CUresult error) {
        const char *name = nullptr;
        if (cuGetErrorName) cuGetErrorName(error, &name);
        return std::string(call) + " failed with CUDA error " + std::to_string(error) +
               (name ? std::string(" (") + name + ")" : "");
    };

    if (const CUresult error = cuInit(0); error != kSuccess) {
        result.problem = error == kErrorNoDevice ? "no CUDA device: the driver reports none"
                                                 : "no CUDA device: " + failure("cuInit", error);
        return result;
    }
    if (cuDriverGetVersion) cuDriverGetVersion(&result.driver_version);
    int count = 0;
    if (const CUresult error = cuDeviceGetCount(&count); error != kSuccess) {
        result.problem = "no CUDA device: " + failure("cuDeviceGetCount", error);
        return result;
    }
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        CUdevice device = 0;
        if (cuDeviceGet(&device, ordinal) != kSuccess) continue;
        CudaDeviceInfo info;
        info.ordinal = ordinal;
        char name[256] = {};
        if (cuDeviceGetName(name, int(sizeof name) - 1, device) == kSuccess) info.name = name;
        int major = 0, minor = 0, l2 = 0;
        cuDeviceGetAttribute(&info.sm_count, kMultiprocessorCount, device);
        cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device);
        cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device);
        cuDeviceGetAttribute(&info.clock_khz, kClockRate, device);
        cuDeviceGetAttribute(&info.memory_clock_khz, kMemoryClockRate, device);
        cuDeviceGetAttribute(&info.memory_bus_width_bits, kGlobalMemoryBusWidth, device);
        cuDeviceGetAttribute(&l2, kL2CacheSize, device);
        info.compute_capability = major * 10 + minor;
        info.l2_cache_bytes = l2;
        size_t memory = 0;
        if (cuDeviceTotalMem && cuDeviceTotalMem(&memory, device) == kSuccess)
            info.total_memory_bytes = int64_t(memory);
        result.devices.push_back(std::move(info));
    }
    if (result.devices.empty()) result.problem = "no CUDA device: the driver reports none";
    return result;
}

costmodel::GpuSpec device_spec(const CudaDeviceInfo &device) {
    using costmodel::GpuSpec;
    try {
        GpuSpec spec = GpuSpec::by_name(device.name);
        if (device.sm_count > 0 && device.sm_count != spec.sm_count) {
            // A partition of the GPU (MIG): same SMs, fewer of them.
            spec.name += "-" + std::to_string(device.sm_count) + "sm";
            spec.sm_count = device.sm_count;
        }
        return spec;
    } catch (const std::invalid_argument &) {
        // Not in the table by name: fall through to the compute capability.
    }
    // A measured device must be described by its own numbers: only a
    // built-in GPU of exactly its compute capability stands in for it (the
    // nearest older one, which schedules may target, would misdescribe it).
    bool exact = false;
    GpuSpec spec = GpuSpec::for_compute_capability(device.compute_capability, &exact);
    if (!exact) {
        throw std::invalid_argument("CUDA device " + std::to_string(device.ordinal) + " '" + device.name +
                                    "' is not in the GPU table by name or compute capability " +
                                    std::to_string(device.compute_capability) + "; known GPUs: " +
                                    GpuSpec::known_names() + " (or describe it in a JSON spec file)");
    }
    std::string key = device.name;
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return c == ' ' ? '-' : char(std::tolower(c)); });
    spec.name = key.empty() ? spec.name + "-like" : key;
    spec.marketing_name = device.name;
    if (device.sm_count > 0) spec.sm_count = device.sm_count;
    if (device.clock_khz > 0) {
        // Bandwidths measured per clock scale with it; DRAM bandwidth stays the table's estimate.
        spec.l2_bandwidth_bytes_per_second *= device.clock_khz * 1e3 / spec.boost_clock_hz;
        spec.boost_clock_hz = device.clock_khz * 1e3;
    }
    if (device.l2_cache_bytes > 0) spec.l2_cache_bytes = device.l2_cache_bytes;
    return spec;
}

}  // namespace strata::runtime
