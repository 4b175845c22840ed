// PipelineArguments: the buffers and scalars for one call of an AOT-compiled
// pipeline through its argv entry point.
//
// Outputs are sized by the caller; inputs are sized by asking the pipeline
// itself (a Halide bounds query), so a tool never needs to know a pipeline's
// stencil radii or resampling factors to feed it.
//
// Example:
//   PipelineArguments args(PipelineSignature::from_metadata(blur_metadata()));
//   args.set_output_extents("output", {256, 160});
//   args.allocate_inputs_by_bounds_query(blur_argv);
//   fill_uniform(args.buffer("input"), 0.1, 1.0, /*seed=*/7);
//   int error = args.call(blur_argv);
#pragma once

#include "strata/runtime/PipelineSignature.h"

#include <HalideBuffer.h>

#include <map>
#include <string>
#include <vector>

namespace strata::runtime {

class PipelineArguments {
public:
    // Scalars start at the generator's default (zero where it gave none).
    explicit PipelineArguments(PipelineSignature signature);

    const PipelineSignature &signature() const { return signature_; }

    void set_scalar(const std::string &name, double value);
    double scalar(const std::string &name) const;

    // Allocates the named output with mins at zero.
    void set_output_extents(const std::string &name, const std::vector<int> &extents);
    // Allocates every output at its estimated size (what the generator
    // declared with set_estimates); throws naming the output and dimension
    // when an estimate is missing.
    void set_outputs_from_estimates();

    // Allocates the named input with mins at zero, for inputs whose size the
    // pipeline reads rather than infers (e.g. a reduction over its width).
    void set_input_extents(const std::string &name, const std::vector<int> &extents);

    // Runs a bounds query with the current outputs, scalars and explicitly
    // sized inputs, then allocates each remaining input over exactly the
    // region the pipeline reads. With `estimates_fallback`, inputs with
    // estimates are queried as stand-ins of their estimated shape, so one
    // read through a boundary condition on its own bounds (whose region the
    // query can only clamp to the stand-in's) comes back at its estimates,
    // and an input the query cannot size takes its estimates; otherwise such
    // an input is an error, as is a failed query or an unsized output.
    void allocate_inputs_by_bounds_query(ArgvFunction pipeline, bool estimates_fallback = false);

    Halide::Runtime::Buffer<void> &buffer(const std::string &name);
    const Halide::Runtime::Buffer<void> &buffer(const std::string &name) const;

    // Marks inputs host-dirty (so a GPU pipeline uploads them), calls the
    // pipeline and returns its Halide error code (0 on success). Outputs stay
    // on the device until copy_outputs_to_host().
    int call(ArgvFunction pipeline);
    void copy_outputs_to_host();

private:
    void allocate(const std::string &name, ArgumentKind kind, const std::vector<int> &extents);
    std::vector<void *> make_argv();

    PipelineSignature signature_;
    std::map<std::string, Halide::Runtime::Buffer<void>> buffers_;
    std::map<std::string, halide_scalar_value_t> scalars_;
};

}  // namespace strata::runtime
