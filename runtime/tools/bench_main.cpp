// strata-bench: times the AOT-compiled pipelines it is linked with (through
// their `-e registration` files, see cmake/StrataBench.cmake) and can append
// the result to a profiling log for strata-retrain. See kUsage.
//
// Example:
//   strata-bench-unsharp --samples 50
//   strata-bench-unsharp --featurization unsharp.featurization --features-gpu-spec h200 --log runs/h200.jsonl
//   strata-bench --device        # which CUDA GPU is here, and its GPU spec
//   strata-bench --device-spec gpu.json   # that spec as a file, for STRATA_GPU_SPEC
#include "strata/costmodel/CommandLine.h"
#include "strata/runtime/Benchmark.h"
#include "strata/runtime/Device.h"
#include "strata/runtime/PipelineRegistry.h"
#include "strata/runtime/ProfileLog.h"
#include "strata/runtime/TypeDispatch.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

using namespace strata::runtime;
namespace costmodel = strata::costmodel;
using costmodel::CommandLine;
using costmodel::parse_number;
using costmodel::UsageError;

const char *kUsage = R"(usage: %s [options]

Times an AOT-compiled Halide pipeline linked into this program: outputs at
the pipeline's estimated sizes (or --size), inputs sized by a bounds query
and filled with seeded random values, warm-ups, then samples that each end
with a device synchronization. Prints the minimum and the median.

options:
  --pipeline NAME          the pipeline to run (default: the only one linked in)
  --list                   list the linked pipelines and their arguments
  --size OUTPUT=AxBxC      an output's size instead of its estimate (repeatable)
  --input-size INPUT=AxB   the size of an input the bounds query cannot give (repeatable)
  --scalar NAME=VALUE      a scalar parameter instead of its default (repeatable)
  --warmups N              runs before timing (3)
  --samples N              timed runs (20)
  --seed N                 seed of the input contents (1)
  --reuse-device-allocations
                           Halide's device-allocation cache on: no cuMemAlloc/cuMemFree
                           of intermediates per call (the default allocates them per call)
  --json                   print the result as one JSON object

logging (a record strata-retrain can learn from):
  --log FILE.jsonl         append a profiling-log record (needs --featurization);
                           it is taken at the sizes the featurization describes
                           (the estimates), so --size and --input-size must match them
  --featurization FILE     the featurization the build emitted (-e featurization)
  --features-gpu-spec S    the GPU spec (name or spec .json) the build featurized for,
                           when the featurization does not say (STRATA_GPU / STRATA_GPU_SPEC)
  --variant NAME           the scheduler that made the schedule (strata, manual, ...)
  --sample-index N         which of the search's sampled schedules it is
  --gpu-name NAME          the device named in the record when the target is not CUDA

devices:
  --device                 print the CUDA devices and their GPU specs, then exit
  --device-spec FILE       write the GPU spec of the CUDA device (HL_GPU_DEVICE, else 0)
                           as JSON, for STRATA_GPU_SPEC and --features-gpu-spec, then exit
  -h, --help               this text
)";

struct Arguments {
    std::string pipeline;
    bool list = false;
    bool device = false;
    bool json = false;
    std::string log;
    std::string featurization;
    std::string features_gpu_spec;
    std::string variant;
    std::optional<int> sample_index;
    std::string gpu_name;
    std::string device_spec_file;
    BenchmarkOptions options;
};

std::pair<std::string, std::string> split_assignment(const std::string &option, const std::string &text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
        throw UsageError(option + " expects NAME=VALUE, not '" + text + "'");
    }
    return {text.substr(0, eq), text.substr(eq + 1)};
}

Arguments parse_arguments(int argc, char **argv) {
    Arguments a;
    for (CommandLine args(argc, argv); args.next();) {
        const std::string arg = args.current();
        if (arg == "-h" || arg == "--help") {
            std::printf(kUsage, argv[0]);
            std::exit(0);
        } else if (arg == "--pipeline") {
            a.pipeline = args.value();
        } else if (arg == "--list") {
            a.list = true;
        } else if (arg == "--device") {
            a.device = true;
        } else if (arg == "--json") {
            a.json = true;
        } else if (arg == "--size" || arg == "--input-size") {
            const auto [name, size] = split_assignment(arg, args.value());
            (arg == "--size" ? a.options.output_extents : a.options.input_extents)[name] =
                parse_extents(size, arg + " " + name);
        } else if (arg == "--scalar") {
            const auto [name, text] = split_assignment(arg, args.value());
            char *end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (*end != '\0') throw UsageError("--scalar " + name + " expects a number, not '" + text + "'");
            a.options.scalars[name] = v;
        } else if (arg == "--warmups") {
            a.options.warmups = parse_number<int>(arg, args.value());
        } else if (arg == "--samples") {
            a.options.samples = parse_number<int>(arg, args.value());
        } else if (arg == "--reuse-device-allocations") {
            a.options.reuse_device_allocations = true;
        } else if (arg == "--seed") {
            a.options.seed = uint64_t(parse_number<int>(arg, args.value()));
        } else if (arg == "--log") {
            a.log = args.value();
        } else if (arg == "--featurization") {
            a.featurization = args.value();
        } else if (arg == "--gpu-name") {
            a.gpu_name = args.value();
        } else if (arg == "--features-gpu-spec") {
            a.features_gpu_spec = args.value();
        } else if (arg == "--variant") {
            a.variant = args.value();
        } else if (arg == "--sample-index") {
            a.sample_index = parse_number<int>(arg, args.value());
            if (*a.sample_index < 0) throw UsageError("--sample-index must not be negative");
        } else if (arg == "--device-spec") {
            a.device_spec_file = args.value();
        } else {
            throw UsageError("unknown argument " + arg);
        }
    }
    if (!a.log.empty() && a.featurization.empty()) {
        throw UsageError("--log needs the build's --featurization (the per-stage features a record holds)");
    }
    return a;
}

int print_devices() {
    const CudaDevices found = query_cuda_devices();
    if (found.devices.empty()) {
        std::printf("%s\n", found.problem.c_str());
        return 1;
    }
    std::printf("CUDA driver %d.%d\n", found.driver_version / 1000, found.driver_version % 1000 / 10);
    for (const CudaDeviceInfo &d : found.devices) {
        std::printf("device %d: %s, %d SMs, compute capability %d.%d, %.0f MHz, %.1f GiB\n", d.ordinal, d.name.c_str(),
                    d.sm_count, d.compute_capability / 10, d.compute_capability % 10, d.clock_khz / 1e3,
                    double(d.total_memory_bytes) / (1 << 30));
        try {
            const costmodel::GpuSpec spec = device_spec(d);
            std::printf("  GPU spec: %s (%d SMs, %.0f GB/s DRAM, %.1f TFLOP/s FP32)\n", spec.name.c_str(),
                        spec.sm_count, spec.dram_bandwidth_bytes_per_second / 1e9, spec.fp32_flops_per_second() / 1e12);
        } catch (const std::exception &e) {
            std::printf("  GPU spec: %s\n", e.what());
        }
    }
    return 0;
}

void list_pipelines() {
    if (registered_pipelines().empty()) {
        std::printf("no pipelines are linked in (build benchmarks with strata_add_bench, cmake/StrataBench.cmake)\n");
    }
    for (const RegisteredPipeline &p : registered_pipelines()) {
        const PipelineSignature signature = PipelineSignature::from_metadata(p.metadata);
        std::printf("%s (target %s)\n", signature.name().c_str(), signature.target().c_str());
        for (const ArgumentInfo &arg : signature.arguments()) {
            std::string estimate;
            for (const auto &e : arg.estimates)
                estimate += (estimate.empty() ? "" : "x") + (e ? std::to_string(e->extent) : "?");
            const char *kind = arg.is_output() ? "output" : arg.is_buffer() ? "input" : "scalar";
            std::printf("  %-6s %-20s %-8s %s\n", kind, arg.name.c_str(), type_name(arg.type).c_str(),
                        arg.is_buffer() ? ("estimate " + (estimate.empty() ? "none" : estimate)).c_str() : "");
        }
    }
}

bool is_cuda_target(const std::string &target) { return target.find("cuda") != std::string::npos; }

// The CUDA device the Halide CUDA runtime uses: HL_GPU_DEVICE, else 0.
CudaDeviceInfo chosen_cuda_device(const CudaDevices &found) {
    if (found.devices.empty()) throw std::runtime_error(found.problem);
    const char *chosen = std::getenv("HL_GPU_DEVICE");
    const int ordinal = chosen && *chosen ? std::atoi(chosen) : 0;
    for (const CudaDeviceInfo &d : found.devices) {
        if (d.ordinal == ordinal) return d;
    }
    throw std::runtime_error("HL_GPU_DEVICE=" + std::to_string(ordinal) + " names no CUDA device");
}

int write_device_spec(const std::string &path) {
    const costmodel::GpuSpec spec = device_spec(chosen_cuda_device(query_cuda_devices()));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!(out << spec.to_json_text() << "\n")) throw std::runtime_error("cannot write " + path);
    std::printf("%s\n", spec.name.c_str());
    return 0;
}

// The device the record is for, as its API describes it.
MeasuredDevice measured_device(const Arguments &a, const std::string &target) {
    MeasuredDevice device;
    if (!is_cuda_target(target)) {
        if (a.gpu_name.empty()) {
            throw UsageError("target " + target + " is not CUDA: name the device of the record with --gpu-name");
        }
        device.api = target.find("opencl") != std::string::npos ? "opencl" : "host";
        device.info.name = a.gpu_name;
        return device;
    }
    const CudaDevices found = query_cuda_devices();
    device.api = "cuda";
    device.info = chosen_cuda_device(found);
    if (!a.gpu_name.empty()) device.info.name = a.gpu_name;
    device.driver_version = found.driver_version;
    return device;
}

// The spec the featurization's features were computed for: its own word, else the command line's.
costmodel::GpuSpec featurizing_spec(const Arguments &a, const costmodel::Featurization &featurization) {
    std::optional<costmodel::GpuSpec> given;
    if (!a.features_gpu_spec.empty()) given = costmodel::GpuSpec::from_name_or_file(a.features_gpu_spec);
    if (featurization.gpu_spec) {
        if (given && !given->differences(*featurization.gpu_spec).empty()) {
            throw UsageError(a.featurization + " says its features were computed for " +
                             featurization.gpu_spec->name + ", not for --features-gpu-spec " + a.features_gpu_spec);
        }
        return *featurization.gpu_spec;
    }
    if (!given) {
        throw UsageError(a.featurization +
                         " does not say which GPU spec its features were computed for: give it with "
                         "--features-gpu-spec NAME|SPEC.json (the STRATA_GPU or STRATA_GPU_SPEC of the build)");
    }
    return *given;
}

// A record pairs the featurization's features, computed at the pipeline's
// estimated sizes, with a time: the time must be taken at those sizes.
void require_estimated_sizes(const Arguments &a, const PipelineSignature &signature) {
    auto check = [&](const std::map<std::string, std::vector<int>> &given, const char *option) {
        for (const auto &[name, extents] : given) {
            const ArgumentInfo &arg = signature.argument(name);
            std::string estimate;
            bool same = arg.estimates.size() == extents.size();
            for (size_t d = 0; d < arg.estimates.size(); ++d) {
                estimate += (d ? "x" : "") + (arg.estimates[d] ? std::to_string(arg.estimates[d]->extent) : "?");
                same = same && arg.estimates[d] && arg.estimates[d]->extent == extents[d];
            }
            if (!same) {
                throw UsageError(std::string(option) + " " + name + " differs from its estimate " + estimate +
                                 ", the size the featurization describes: a record would pair those features "
                                 "with another size's time (leave out --log, or the size)");
            }
        }
    };
    check(a.options.output_extents, "--size");
    check(a.options.input_extents, "--input-size");
}

int run(const Arguments &a) {
    const RegisteredPipeline &registered = find_registered_pipeline(a.pipeline);
    const PipelineSignature signature = PipelineSignature::from_metadata(registered.metadata);
    if (is_cuda_target(signature.target())) {
        const CudaDevices found = query_cuda_devices();
        if (found.devices.empty()) {
            throw std::runtime_error("pipeline '" + signature.name() + "' is compiled for CUDA (" + signature.target() +
                                     ") but there is " + found.problem);
        }
    }
    // Read the featurization before timing, so that a bad file fails fast.
    std::optional<costmodel::Featurization> featurization;
    if (!a.featurization.empty()) {
        featurization = costmodel::Featurization::read_file(a.featurization);
    }
    std::optional<costmodel::GpuSpec> featurized_for;
    MeasuredDevice device;
    if (!a.log.empty()) {
        featurized_for = featurizing_spec(a, *featurization);
        require_estimated_sizes(a, signature);
        device = measured_device(a, signature.target());
    }

    const BenchmarkResult result = run_benchmark(registered.argv, signature, a.options);

    std::string sizes;
    for (const auto &[name, extents] : result.output_extents) {
        std::string e;
        for (int x : extents) e += (e.empty() ? "" : "x") + std::to_string(x);
        sizes += (sizes.empty() ? "" : ", ") + name + " " + e;
    }
    if (a.json) {
        nlohmann::ordered_json out = {{"pipeline", result.pipeline},         {"target", result.target},
                                      {"outputs", result.output_extents},    {"inputs", result.input_extents},
                                      {"min_ms", result.times.min_ms},
                                      {"median_ms", result.times.median_ms}, {"samples_ms", result.samples_ms}};
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("%s (%s; %s): min %.4f ms, median %.4f ms over %d samples after %d warm-ups\n",
                    result.pipeline.c_str(), result.target.c_str(), sizes.c_str(), result.times.min_ms,
                    result.times.median_ms, result.times.samples, a.options.warmups);
    }
    if (!a.log.empty()) {
        ProfileRecord record;
        record.identity = featurization->identity;
        // The pipeline as built and run: the featurization names the pipeline by its outputs.
        record.identity.pipeline_name = signature.name();
        record.sizes = result.output_extents;
        record.sizes.insert(result.input_extents.begin(), result.input_extents.end());
        record.variant = a.variant;
        record.sample_index = a.sample_index;
        record.target = result.target;
        record.featurized_for = *featurized_for;
        record.device = device;
        record.halide_version = halide_version();
        record.strata_version = strata_version();
        record.stages = featurization->stages;
        record.times = result.times;
        record.times.reused_device_allocations = a.options.reuse_device_allocations;
        ProfileLogWriter(a.log).append(record);
        if (!a.json) {
            std::printf("appended a record for %s on %s to %s\n", result.pipeline.c_str(), device.info.name.c_str(),
                        a.log.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        const Arguments arguments = parse_arguments(argc, argv);
        if (arguments.device) return print_devices();
        if (!arguments.device_spec_file.empty()) return write_device_spec(arguments.device_spec_file);
        if (arguments.list) {
            list_pipelines();
            return 0;
        }
        return run(arguments);
    } catch (const UsageError &e) {
        std::fprintf(stderr, "%s: %s\n\n", argv[0], e.what());
        std::fprintf(stderr, kUsage, argv[0]);
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
}
