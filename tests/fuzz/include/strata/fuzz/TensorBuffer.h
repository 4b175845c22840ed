// TensorBuffer: moving values between the interpreter's tensors and the
// Halide buffers a compiled pipeline reads and writes, so that a check feeds
// both the same inputs and compares like with like.
//
// Example:
//   Tensor in = tensor_from_buffer(pipeline_input, ScalarType::UInt8, {64, 48});
//   copy_to_buffer(reference_output, expected_buffer);
#pragma once

#include "strata/fuzz/Interpreter.h"

#include "strata/runtime/RandomFill.h"

#include <HalideBuffer.h>

namespace strata::fuzz {

// The tensor over [0, shape) holding the buffer's values where the buffer
// has them and 0 elsewhere: a schedule may leave part of an input's box
// unread (and so unallocated), and what it does not read cannot matter.
Tensor tensor_from_buffer(const Halide::Runtime::Buffer<void> &buffer, ScalarType type, const Shape &shape);

// Writes the tensor into the buffer, which must have its type and cover its box.
void copy_to_buffer(const Tensor &tensor, Halide::Runtime::Buffer<void> &buffer);

halide_type_t runtime_type(ScalarType type);

// The values an input is filled with: its own range, else the harness's default.
runtime::ValueRange fill_range(const InputOp &input);

}  // namespace strata::fuzz
