#include "strata/fuzz/CheckSpec.h"

#include "strata/fuzz/Interpreter.h"
#include "strata/fuzz/TensorBuffer.h"

#include <cmath>

namespace strata::fuzz {

namespace {

constexpr uint64_t kScaleInputSeed = 0x5CA1E;

constexpr double kRelativeTolerance = 2e-3;
constexpr double kAbsoluteToleranceOfScale = 1e-4;

std::map<std::string, Tensor> random_inputs(const Description &d) {
    std::map<std::string, Tensor> inputs;
    uint64_t seed = kScaleInputSeed;
    for (const Stage &s : d.stages) {
        const auto *input = std::get_if<InputOp>(&s.op);
        if (!input) continue;
        Halide::Runtime::Buffer<void> buffer(runtime_type(input->type),
                                             std::vector<int>(input->shape.begin(), input->shape.end()));
        runtime::fill_uniform(buffer, fill_range(*input), seed++);
        inputs[s.name] = tensor_from_buffer(buffer, input->type, input->shape);
    }
    return inputs;
}

// Per stage: the largest float magnitude among it and everything it reads.
std::vector<double> scales(const Description &d) {
    const std::vector<StageValue> values = evaluate(d, random_inputs(d));
    std::vector<double> scale(d.stages.size(), 0.0);
    for (size_t i = 0; i < d.stages.size(); ++i) {
        for (int operand : operands_of(d.stages[i].op)) scale[i] = std::max(scale[i], scale[operand]);
        for (const Tensor &t : values[i]) {
            if (!is_float(t.type())) continue;
            for (int64_t k = 0; k < t.size(); ++k) scale[i] = std::max(scale[i], std::fabs(t[k]));
        }
    }
    return scale;
}

}  // namespace

std::vector<std::string> output_buffer_names(const Description &description, size_t k) {
    const std::string base = "out" + std::to_string(k);
    const size_t elements = description.stages.at(description.outputs.at(k)).types.size();
    if (elements == 1) return {base};
    std::vector<std::string> names;
    for (size_t e = 0; e < elements; ++e) names.push_back(base + "." + std::to_string(e));
    return names;
}

harness::AppCheckSpec check_spec(const Description &description) {
    harness::AppCheckSpec spec;
    // The simplifier may prove an input unneeded (x - x); the generator
    // gives every input its box as estimate.
    spec.unread_inputs_from_estimates = true;
    for (const Stage &s : description.stages) {
        if (const auto *input = std::get_if<InputOp>(&s.op)) spec.input_ranges[s.name] = fill_range(*input);
    }
    const std::vector<double> scale = scales(description);
    for (size_t k = 0; k < description.outputs.size(); ++k) {
        const int o = description.outputs[k];
        const Stage &stage = description.stages[o];
        const std::vector<std::string> names = output_buffer_names(description, k);
        for (size_t e = 0; e < names.size(); ++e) {
            spec.output_extents[names[e]] = std::vector<int>(stage.shape.begin(), stage.shape.end());
            harness::Tolerance tolerance{0, 0.5};  // integers: exact
            if (is_float(stage.types[e])) {
                tolerance = {kRelativeTolerance, kAbsoluteToleranceOfScale * std::max(scale[o], 1e-3)};
            }
            spec.output_tolerances[names[e]] = tolerance;
        }
    }
    spec.reference = [description](harness::ReferenceArguments &args) {
        std::map<std::string, Tensor> inputs;
        for (const Stage &s : description.stages) {
            if (const auto *input = std::get_if<InputOp>(&s.op)) {
                inputs[s.name] = tensor_from_buffer(args.input_buffer(s.name), input->type, input->shape);
            }
        }
        const std::vector<StageValue> values = evaluate(description, inputs);
        for (size_t k = 0; k < description.outputs.size(); ++k) {
            const std::vector<std::string> names = output_buffer_names(description, k);
            for (size_t e = 0; e < names.size(); ++e) {
                copy_to_buffer(values[description.outputs[k]][e], args.output_buffer(names[e]));
            }
        }
    };
    return spec;
}

}  // namespace strata::fuzz
