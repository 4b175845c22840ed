// Interpreter: the reference meaning of a pipeline description, in plain
// C++ and written without Halide — each stage evaluated over its box, in
// the element types' Halide arithmetic (ScalarType.h), reductions in their
// serial order. The fuzzing checks compare every compiled schedule with it.
//
// Example:
//   std::map<std::string, Tensor> inputs = {{"in0", Tensor(ScalarType::Float32, {64, 48})}};
//   std::vector<StageValue> values = evaluate(description, inputs);
//   const Tensor &out = values[description.outputs[0]][0];
#pragma once

#include "strata/fuzz/Description.h"

#include <map>
#include <string>
#include <vector>

namespace strata::fuzz {

// A dense array over [0, shape) with dimension 0 innermost. Elements are
// held as doubles, which represent every value of every ScalarType exactly.
class Tensor {
public:
    Tensor() = default;
    Tensor(ScalarType type, Shape shape);

    ScalarType type() const { return type_; }
    const Shape &shape() const { return shape_; }
    const std::vector<int64_t> &strides() const { return strides_; }
    int64_t size() const { return int64_t(values_.size()); }

    double &operator[](int64_t offset) { return values_[offset]; }
    double operator[](int64_t offset) const { return values_[offset]; }
    int64_t offset(const int64_t *coordinates) const;

private:
    ScalarType type_ = ScalarType::Float32;
    Shape shape_;
    std::vector<int64_t> strides_;
    std::vector<double> values_;
};

// One tensor per tuple element.
using StageValue = std::vector<Tensor>;

// Thrown when the description asks for something Halide leaves undefined
// (32-bit signed overflow, a float converted to an integer it does not fit).
class UndefinedArithmetic : public std::domain_error {
public:
    using std::domain_error::domain_error;
};

// Evaluates every stage. `inputs` maps each input stage's name to its
// values (type and shape as described). Throws std::invalid_argument for a
// missing or misshapen input and UndefinedArithmetic naming the stage.
std::vector<StageValue> evaluate(const Description &description, const std::map<std::string, Tensor> &inputs);

}  // namespace strata::fuzz
