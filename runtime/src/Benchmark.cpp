#include "strata/runtime/Benchmark.h"

#include "strata/runtime/HalideErrorCapture.h"
#include "strata/runtime/PipelineArguments.h"
#include "strata/runtime/RandomFill.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

// The Halide runtime comes with the pipeline object a benchmark binary links;
// strata-bench without one (--device) has none, so the cache switch is weak.
#pragma weak halide_reuse_device_allocations

namespace strata::runtime {

namespace {

void size_outputs(PipelineArguments &args, const BenchmarkOptions &options) {
    const PipelineSignature &signature = args.signature();
    for (const auto &[name, extents] : options.output_extents) {
        if (!signature.argument(name).is_output()) {
            throw std::invalid_argument("'" + name + "' is not an output of pipeline '" + signature.name() + "'");
        }
    }
    if (options.output_extents.empty()) {
        args.set_outputs_from_estimates();
        return;
    }
    for (const ArgumentInfo &arg : signature.arguments()) {
        if (!arg.is_output()) continue;
        auto given = options.output_extents.find(arg.name);
        if (given != options.output_extents.end()) {
            args.set_output_extents(arg.name, given->second);
            continue;
        }
        std::vector<int> extents;
        for (int d = 0; d < arg.dimensions; ++d) {
            if (!arg.estimates[d]) {
                throw std::invalid_argument("output '" + arg.name + "' of pipeline '" + signature.name() +
                                            "' has no estimate for dimension " + std::to_string(d) +
                                            "; give its size with --size " + arg.name + "=...");
            }
            extents.push_back(int(arg.estimates[d]->extent));
        }
        args.set_output_extents(arg.name, extents);
    }
}

// The argv of a call that does not mark inputs dirty again: after the first
// call they live on the device, and re-uploading them is not the pipeline's time.
struct CallArguments {
    std::vector<halide_scalar_value_t> scalars;
    std::vector<void *> argv;

    explicit CallArguments(PipelineArguments &args) {
        const auto &arguments = args.signature().arguments();
        scalars.reserve(arguments.size());
        for (const ArgumentInfo &arg : arguments) {
            if (arg.is_buffer()) {
                argv.push_back(args.buffer(arg.name).raw_buffer());
            } else {
                scalars.push_back(scalar_from_double(args.scalar(arg.name), arg.type));
                argv.push_back(&scalars.back());
            }
        }
    }
};

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

std::vector<int> parse_extents(const std::string &text, const std::string &what) {
    std::vector<int> extents;
    size_t start = 0;
    while (true) {
        const size_t end = std::min(text.find('x', start), text.size());
        const std::string part = text.substr(start, end - start);
        size_t used = 0;
        int value = 0;
        try {
            value = std::stoi(part, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (part.empty() || used != part.size() || value <= 0) {
            throw std::invalid_argument(what + ": '" + text + "' is not a size such as 256x160x3");
        }
        extents.push_back(value);
        if (end == text.size()) return extents;
        start = end + 1;
    }
}

BenchmarkResult run_benchmark(ArgvFunction pipeline, const PipelineSignature &signature,
                              const BenchmarkOptions &options) {
    if (options.samples < 1 || options.warmups < 0) {
        throw std::invalid_argument("a benchmark needs at least one sample and no negative warm-ups");
    }
    PipelineArguments args(signature);
    for (const auto &[name, value] : options.scalars) args.set_scalar(name, value);
    size_outputs(args, options);
    for (const auto &[name, extents] : options.input_extents) args.set_input_extents(name, extents);
    args.allocate_inputs_by_bounds_query(pipeline, /*estimates_fallback=*/true);
    uint64_t stream = options.seed;
    for (const ArgumentInfo &arg : signature.arguments()) {
        if (arg.kind != ArgumentKind::InputBuffer) continue;
        fill_uniform(args.buffer(arg.name), default_range(arg.type), stream++);
    }

    BenchmarkResult result;
    result.pipeline = signature.name();
    result.target = signature.target();
    std::vector<Halide::Runtime::Buffer<void> *> outputs;
    for (const ArgumentInfo &arg : signature.arguments()) {
        if (!arg.is_buffer()) continue;
        const Halide::Runtime::Buffer<void> &buffer = args.buffer(arg.name);
        std::vector<int> extents;
        for (int d = 0; d < buffer.dimensions(); ++d) extents.push_back(buffer.dim(d).extent());
        (arg.is_output() ? result.output_extents : result.input_extents)[arg.name] = extents;
    }
    for (const std::string &name : signature.output_names()) outputs.push_back(&args.buffer(name));

    CallArguments call(args);
    auto run_once = [&]() {
        if (const int error = pipeline(call.argv.data())) {
            throw std::runtime_error("pipeline '" + signature.name() + "' failed with " + describe_halide_error(error));
        }
        for (Halide::Runtime::Buffer<void> *out : outputs) {
            if (const int error = out->device_sync()) {
                throw std::runtime_error("synchronizing the device after pipeline '" + signature.name() +
                                         "' failed with " + describe_halide_error(error));
            }
        }
    };
    // Freed at the end (turning the cache off releases it), even if a run throws.
    struct AllocationCache {
        bool on;
        explicit AllocationCache(bool reuse) : on(reuse) {
            if (on && !halide_reuse_device_allocations) {
                throw std::runtime_error("--reuse-device-allocations: no Halide runtime is linked in");
            }
            if (on) halide_reuse_device_allocations(nullptr, true);
        }
        ~AllocationCache() {
            if (on) halide_reuse_device_allocations(nullptr, false);
        }
    } allocation_cache(options.reuse_device_allocations);
    for (int i = 0; i < options.warmups; ++i) run_once();
    for (int i = 0; i < options.samples; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run_once();
        const auto end = std::chrono::steady_clock::now();
        result.samples_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    result.times.min_ms = *std::min_element(result.samples_ms.begin(), result.samples_ms.end());
    result.times.median_ms = median_of(result.samples_ms);
    result.times.samples = options.samples;
    result.times.samples_ms = result.samples_ms;
    return result;
}

}  // namespace strata::runtime
