#include "strata/harness/AppCheck.h"

#include "strata/runtime/HalideErrorCapture.h"
#include "strata/runtime/PipelineArguments.h"
#include "strata/runtime/RandomFill.h"

#include <optional>
#include <sstream>

namespace strata::harness {

const char *to_string(CheckStatus status) {
    switch (status) {
    case CheckStatus::Passed: return "passed";
    case CheckStatus::PassedUnoptimized: return "passed-unoptimized";
    case CheckStatus::GeneratorFailed: return "generator-failed";
    case CheckStatus::NoGpuKernels: return "no-gpu-kernels";
    case CheckStatus::OverLimits: return "over-limits";
    case CheckStatus::PipelineError: return "pipeline-error";
    case CheckStatus::Mismatch: return "mismatch";
    case CheckStatus::Unwritten: return "unwritten";
    case CheckStatus::Crashed: return "crashed";
    case CheckStatus::TimedOut: return "timed-out";
    }
    return "unknown";
}

namespace {

runtime::PipelineArguments prepare_arguments(const CompiledVariant &variant, const AppCheckSpec &spec,
                                             uint64_t seed) {
    runtime::PipelineArguments args(runtime::PipelineSignature::from_metadata(variant.metadata()));
    for (const auto &[name, value] : spec.scalars) args.set_scalar(name, value);
    for (const std::string &name : args.signature().output_names()) {
        auto extents = spec.output_extents.find(name);
        if (extents == spec.output_extents.end()) {
            throw std::invalid_argument("the app's check spec gives no extents for output '" + name + "'");
        }
        args.set_output_extents(name, extents->second);
    }
    for (const auto &[name, extents] : spec.input_extents) args.set_input_extents(name, extents);
    args.allocate_inputs_by_bounds_query(variant.argv, spec.unread_inputs_from_estimates);
    uint64_t input_seed = seed;
    for (const auto &arg : args.signature().arguments()) {
        if (arg.kind != runtime::ArgumentKind::InputBuffer) continue;
        auto range = spec.input_ranges.find(arg.name);
        runtime::fill_uniform(args.buffer(arg.name),
                              range != spec.input_ranges.end() ? range->second : runtime::default_range(arg.type),
                              input_seed++);
    }
    return args;
}

// Runs the pipeline over outputs poisoned with `byte` and returns host copies.
std::map<std::string, Halide::Runtime::Buffer<void>> run_poisoned(runtime::PipelineArguments &args,
                                                                  const CompiledVariant &variant, uint8_t byte) {
    for (const std::string &name : args.signature().output_names()) {
        Halide::Runtime::Buffer<void> &output = args.buffer(name);
        poison(output, byte);
        // A pipeline writes its outputs on the device and never uploads them,
        // so the poison must be put there before the call.
        if (variant.device && output.copy_to_device(variant.device) != 0) {
            throw std::runtime_error("uploading the poisoned output '" + name + "' to the device failed");
        }
    }
    if (int error = args.call(variant.argv)) {
        throw std::runtime_error("pipeline returned " + runtime::describe_halide_error(error));
    }
    args.copy_outputs_to_host();
    std::map<std::string, Halide::Runtime::Buffer<void>> outputs;
    for (const std::string &name : args.signature().output_names()) outputs[name] = args.buffer(name).copy();
    return outputs;
}

}  // namespace

CheckResult check_variant(const std::string &app, const CompiledVariant &variant, const AppCheckSpec &spec,
                          uint64_t seed) {
    CheckResult result;
    result.app = app;
    result.variant = variant.name;
    if (!variant.metadata || !variant.metadata()) {
        result.status = CheckStatus::GeneratorFailed;
        result.message = "the generator failed for this variant, so there is no pipeline to run";
        return result;
    }
    clear_launches();
    std::optional<runtime::PipelineArguments> prepared;
    std::map<std::string, Halide::Runtime::Buffer<void>> run_a, run_b;
    try {
        prepared.emplace(prepare_arguments(variant, spec, seed));
        run_a = run_poisoned(*prepared, variant, kPoisonA);
        run_b = run_poisoned(*prepared, variant, kPoisonB);
    } catch (const std::runtime_error &e) {
        result.status = CheckStatus::PipelineError;
        result.message = e.what();
        return result;
    }

    std::map<std::string, Halide::Runtime::Buffer<void>> expected;
    for (const auto &[name, buffer] : run_a) {
        expected[name] = buffer.copy();
        poison(expected[name], kPoisonA);
    }
    ReferenceArguments reference_args(*prepared, expected);
    spec.reference(reference_args);

    for (const auto &[name, actual] : run_a) {
        auto tolerance = spec.output_tolerances.find(name);
        result.outputs.push_back(compare_output(
            name, actual, expected.at(name),
            tolerance != spec.output_tolerances.end() ? tolerance->second : spec.tolerance));
        result.unwritten += count_unwritten(actual, run_b.at(name));
    }
    std::ostringstream message;
    for (const OutputComparison &c : result.outputs) {
        if (!c.passed()) {
            result.status = CheckStatus::Mismatch;
            message << c.mismatches << " of " << c.elements << " elements of '" << c.name << "' differ; ";
        }
    }
    if (result.unwritten > 0) {
        result.status = CheckStatus::Unwritten;
        message << result.unwritten << " output elements were never written; ";
    }
    result.launches = launches();
    const LaunchLimits limits;
    for (const auto &[kernel, k] : result.launches) {
        if (k.max_shared_bytes > limits.max_shared_bytes || k.max_threads_per_block > limits.max_threads_per_block) {
            if (result.status == CheckStatus::Passed) result.status = CheckStatus::OverLimits;
            message << "kernel " << kernel << " launches " << k.max_threads_per_block << " threads with "
                    << k.max_shared_bytes << " bytes of shared memory per block; ";
        }
        for (int d = 0; d < 3; ++d) {
            if (k.max_grid[d] <= limits.max_grid[d]) continue;
            if (result.status == CheckStatus::Passed) result.status = CheckStatus::OverLimits;
            message << "kernel " << kernel << " launches " << k.max_grid[d] << " blocks along " << "xyz"[d]
                    << " (at most " << limits.max_grid[d] << "); ";
        }
    }
    result.message = message.str();
    return result;
}

}  // namespace strata::harness
