// TestRecords: complete, valid profiling-log records for the runtime tests —
// every field set, so round trips check them all — and a scratch directory
// that removes itself.
#pragma once

#include "strata/runtime/ProfileLog.h"

#include <unistd.h>

#include <filesystem>
#include <string>

namespace strata::runtime::test {

inline MeasuredDevice h200_device() {
    MeasuredDevice device;
    device.api = "cuda";
    device.driver_version = 13000;
    CudaDeviceInfo &d = device.info;
    d.name = "NVIDIA H200";
    d.sm_count = 132;
    d.compute_capability = 90;
    d.clock_khz = 1980000;
    d.memory_clock_khz = 2619000;
    d.memory_bus_width_bits = 6144;
    d.l2_cache_bytes = 60 * 1024 * 1024;
    d.total_memory_bytes = int64_t(141) << 30;
    return device;
}

// A record of schedule `schedule` of a made-up two-stage pipeline, measured on an H200.
inline ProfileRecord make_record(int schedule) {
    using namespace strata::costmodel;
    ProfileRecord r;
    r.identity = {"unsharp", ContentHash::of_text("unsharp pipeline"), ContentHash::of_text(std::to_string(schedule)),
                  ContentHash::of_text("unsharp algorithm")};
    r.sizes = {{"input", {1536, 2560, 3}}, {"output", {1536, 2560, 3}}};
    r.variant = "strata";
    r.sample_index = schedule;
    r.target = "x86-64-linux-cuda-cuda_capability_86";
    r.featurized_for = GpuSpec::by_name("h200");
    r.device = h200_device();
    r.halide_version = halide_version();
    r.strata_version = strata_version();
    for (int s = 0; s < 2; ++s) {
        StageFeatures stage;
        stage.name = "f" + std::to_string(s) + ".s0";
        stage.kernel = s;
        for (int i = 0; i < kNumFeatures; ++i) stage.features[i] = schedule * 100.0 + i + 0.25;
        for (Feature fraction : {Feature::Occupancy, Feature::ActiveThreadFraction, Feature::WaveEfficiency}) {
            stage.features[index(fraction)] = 0.5;
        }
        stage.features[index(Feature::IsUpdate)] = 0;
        stage.features[index(Feature::IsKernelRoot)] = 1;
        r.stages.push_back(stage);
    }
    r.times = {0.5 + schedule, 0.75 + schedule, 3, {0.75 + schedule, 0.5 + schedule, 0.8 + schedule}};
    return r;
}

// A fresh directory per test, removed afterwards.
class TemporaryDirectory {
public:
    explicit TemporaryDirectory(const std::string &name)
        : path_(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TemporaryDirectory() { std::filesystem::remove_all(path_); }
    TemporaryDirectory(const TemporaryDirectory &) = delete;
    TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;

    std::string file(const std::string &name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

}  // namespace strata::runtime::test
