// PipelineSignature: what an AOT-compiled Halide pipeline takes and returns,
// read from the metadata that every compiled pipeline carries
// (`<name>_metadata()`), so that tools can drive any pipeline through its
// argv entry point (`<name>_argv(void **)`) without its header.
//
// Example:
//   auto signature = strata::runtime::PipelineSignature::from_metadata(blur_metadata());
//   for (const auto &arg : signature.arguments())
//       std::printf("%s: %d dims\n", arg.name.c_str(), arg.dimensions);
#pragma once

#include <HalideRuntime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::runtime {

// The argv entry point that Halide emits for every pipeline.
using ArgvFunction = int (*)(void **);
using MetadataFunction = const halide_filter_metadata_t *(*)();

enum class ArgumentKind { InputScalar, InputBuffer, OutputBuffer };

struct DimensionEstimate {
    int64_t min = 0;
    int64_t extent = 0;
};

struct ArgumentInfo {
    std::string name;
    ArgumentKind kind = ArgumentKind::InputScalar;
    int dimensions = 0;
    halide_type_t type{};
    // Scalars: the generator's default value, if it declared one.
    std::optional<halide_scalar_value_t> scalar_default;
    std::optional<halide_scalar_value_t> scalar_min;
    std::optional<halide_scalar_value_t> scalar_max;
    // Buffers: the estimate of each dimension, where the generator gave one.
    std::vector<std::optional<DimensionEstimate>> estimates;

    bool is_buffer() const { return kind != ArgumentKind::InputScalar; }
    bool is_output() const { return kind == ArgumentKind::OutputBuffer; }
};

class PipelineSignature {
public:
    // Throws std::invalid_argument if `metadata` is null or malformed.
    static PipelineSignature from_metadata(const halide_filter_metadata_t *metadata);

    const std::string &name() const { return name_; }
    const std::string &target() const { return target_; }
    // In argv order.
    const std::vector<ArgumentInfo> &arguments() const { return arguments_; }
    // Throws std::out_of_range naming `name` and the pipeline when absent.
    const ArgumentInfo &argument(const std::string &name) const;
    std::vector<std::string> output_names() const;

private:
    std::string name_;
    std::string target_;
    std::vector<ArgumentInfo> arguments_;
};

// Reads a scalar value of the given type as a double (for printing and ranges).
double scalar_as_double(const halide_scalar_value_t &value, halide_type_t type);
// Stores `value` converted to the given type.
halide_scalar_value_t scalar_from_double(double value, halide_type_t type);

}  // namespace strata::runtime
