// AppCheckSpec: what an app tells the verification harness — the output
// sizes of the small PoCL run, the value ranges of its inputs, the scalar
// values to use, the tolerance, and its plain C++ reference.
//
// Every app's `<app>_reference.cpp` defines `strata_app_check_spec()`; the
// harness links it with the app's compiled variants and checks each variant's
// outputs against the reference on the same random inputs.
//
// Example:
//   strata::harness::AppCheckSpec strata_app_check_spec() {
//       strata::harness::AppCheckSpec spec;
//       spec.output_extents["output"] = {256, 160};
//       spec.reference = [](strata::harness::ReferenceArguments &args) {
//           auto in = args.input<float>("input");
//           auto out = args.output<float>("output");
//           out.for_each_element([&](int x, int y) { out(x, y) = 2 * in(x, y); });
//       };
//       return spec;
//   }
#pragma once

#include "strata/runtime/PipelineArguments.h"
#include "strata/runtime/RandomFill.h"
#include "strata/runtime/TypeDispatch.h"

#include <HalideBuffer.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::harness {

// An element passes when |actual - expected| <= absolute + relative * |expected|.
struct Tolerance {
    double relative = 1e-4;
    double absolute = 1e-5;
};

// The reference's view of one check: the inputs and scalars the pipeline was
// given, and output buffers shaped like the pipeline's, to be filled.
class ReferenceArguments {
public:
    ReferenceArguments(const runtime::PipelineArguments &pipeline_arguments,
                       std::map<std::string, Halide::Runtime::Buffer<void>> &outputs)
        : pipeline_arguments_(pipeline_arguments), outputs_(outputs) {
    }

    template <typename T>
    Halide::Runtime::Buffer<const T> input(const std::string &name) const {
        const Halide::Runtime::Buffer<void> &buffer = pipeline_arguments_.buffer(name);
        check_type<T>(name, buffer.type());
        return Halide::Runtime::Buffer<const T>(*buffer.raw_buffer());
    }

    template <typename T>
    T scalar(const std::string &name) const {
        return T(pipeline_arguments_.scalar(name));
    }

    template <typename T>
    Halide::Runtime::Buffer<T> output(const std::string &name) {
        check_type<T>(name, output_buffer(name).type());
        return output_buffer(name).as<T>();
    }

    // The same, untyped, for references that learn the types at run time.
    const Halide::Runtime::Buffer<void> &input_buffer(const std::string &name) const {
        return pipeline_arguments_.buffer(name);
    }
    Halide::Runtime::Buffer<void> &output_buffer(const std::string &name) {
        auto it = outputs_.find(name);
        if (it == outputs_.end()) throw std::out_of_range("reference asked for unknown output '" + name + "'");
        return it->second;
    }

private:
    template <typename T>
    static void check_type(const std::string &name, halide_type_t actual) {
        if (!(actual == halide_type_of<T>())) {
            throw std::invalid_argument("reference reads '" + name + "' as " +
                                        runtime::type_name(halide_type_of<T>()) + ", but the pipeline's type is " +
                                        runtime::type_name(actual));
        }
    }

    const runtime::PipelineArguments &pipeline_arguments_;
    std::map<std::string, Halide::Runtime::Buffer<void>> &outputs_;
};

struct AppCheckSpec {
    // Extents of every output for the PoCL run (mins are zero). Inputs are
    // sized by the pipeline's bounds query.
    std::map<std::string, std::vector<int>> output_extents;
    // Extents of inputs whose size the pipeline reads instead of inferring
    // (a reduction over an input's width); the others come from the query.
    std::map<std::string, std::vector<int>> input_extents;
    // Inputs the query leaves unsized (the compiled pipeline does not read
    // them at all) take their estimates instead of failing the check.
    bool unread_inputs_from_estimates = false;
    // Value ranges per input; inputs not listed get runtime::default_range.
    std::map<std::string, runtime::ValueRange> input_ranges;
    // Scalar values; scalars not listed keep the generator's default.
    std::map<std::string, double> scalars;
    Tolerance tolerance;
    std::map<std::string, Tolerance> output_tolerances;
    std::function<void(ReferenceArguments &)> reference;
};

}  // namespace strata::harness

// Defined once per app, in `<app>_reference.cpp`.
strata::harness::AppCheckSpec strata_app_check_spec();
