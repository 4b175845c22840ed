// A stand-in for libcuda.so.1 with the few driver API entry points that
// runtime/Device.cpp loads, so that device discovery can be tested on
// machines without a GPU. STRATA_FAKE_CUDA selects what it pretends:
//   "h200" (default)  one NVIDIA H200 with 132 SMs
//   "mig"             an NVIDIA H200 partition with 16 SMs
//   "unknown"         an "NVIDIA Future GPU" of compute capability 9.0
//   "none"            cuInit reports CUDA_ERROR_NO_DEVICE
//   "broken"          cuInit fails with CUDA_ERROR_UNKNOWN (999)
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string mode() {
    const char *m = std::getenv("STRATA_FAKE_CUDA");
    return m ? m : "h200";
}

}  // namespace

extern "C" {

int cuInit(unsigned int) {
    if (mode() == "none") return 100;
    if (mode() == "broken") return 999;
    return 0;
}

int cuDriverGetVersion(int *version) {
    *version = 12040;
    return 0;
}

int cuDeviceGetCount(int *count) {
    *count = 1;
    return 0;
}

int cuDeviceGet(int *device, int ordinal) {
    *device = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int length, int) {
    const char *text = mode() == "unknown" ? "NVIDIA Future GPU" : "NVIDIA H200";
    std::strncpy(name, text, size_t(length));
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, int) {
    switch (attribute) {
    case 13: *value = 1980000; return 0;                     // clock rate, kHz
    case 16: *value = mode() == "mig" ? 16 : 132; return 0;  // multiprocessors
    case 36: *value = 2619000; return 0;                     // memory clock rate, kHz
    case 37: *value = 6144; return 0;                        // memory bus width, bits
    case 38: *value = 50 * 1024 * 1024; return 0;            // L2 bytes
    case 75: *value = 9; return 0;                           // compute capability major
    case 76: *value = 0; return 0;                           // compute capability minor
    default: return 1;                                       // CUDA_ERROR_INVALID_VALUE
    }
}

int cuDeviceTotalMem_v2(size_t *bytes, int) {
    *bytes = size_t(141) << 30;
    return 0;
}

int cuGetErrorName(int error, const char **name) {
    *name = error == 999 ? "CUDA_ERROR_UNKNOWN" : "CUDA_ERROR_OTHER";
    return 0;
}
}
