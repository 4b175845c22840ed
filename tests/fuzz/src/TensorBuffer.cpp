#include "strata/fuzz/TensorBuffer.h"

#include "strata/runtime/TypeDispatch.h"

#include <stdexcept>

namespace strata::fuzz {

namespace {

bool covers(const Halide::Runtime::Buffer<void> &buffer, const std::vector<int> &at) {
    for (size_t d = 0; d < at.size(); ++d) {
        if (at[d] < buffer.dim(int(d)).min() || at[d] > buffer.dim(int(d)).max()) return false;
    }
    return true;
}

// The same point as a Halide buffer index.
std::vector<int> as_index(const int64_t *c, size_t rank) { return std::vector<int>(c, c + rank); }

void check_buffer(const Halide::Runtime::Buffer<void> &buffer, ScalarType type, size_t rank, const char *what) {
    if (!(buffer.type() == runtime_type(type)) || size_t(buffer.dimensions()) != rank) {
        throw std::invalid_argument(std::string(what) + ": the buffer is " + runtime::type_name(buffer.type()) + " " +
                                    std::to_string(buffer.dimensions()) + "-D, the stage " + name_of(type) + " " +
                                    std::to_string(rank) + "-D");
    }
}

}  // namespace

halide_type_t runtime_type(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return halide_type_t(halide_type_float, 32);
    case ScalarType::Float64: return halide_type_t(halide_type_float, 64);
    case ScalarType::Int32: return halide_type_t(halide_type_int, 32);
    case ScalarType::UInt8: return halide_type_t(halide_type_uint, 8);
    case ScalarType::UInt16: return halide_type_t(halide_type_uint, 16);
    }
    return halide_type_t(halide_type_float, 32);
}

runtime::ValueRange fill_range(const InputOp &input) {
    if (input.range) return {input.range->lo, input.range->hi};
    return runtime::default_range(runtime_type(input.type));
}

Tensor tensor_from_buffer(const Halide::Runtime::Buffer<void> &buffer, ScalarType type, const Shape &shape) {
    check_buffer(buffer, type, shape.size(), "reading an input");
    Tensor t(type, shape);
    runtime::dispatch_on_type(buffer.type(), [&](auto tag) {
        using T = decltype(tag);
        const Halide::Runtime::Buffer<const T> typed(*buffer.raw_buffer());
        for_each_coordinate(shape, [&](const int64_t *c, int64_t i) {
            const std::vector<int> at = as_index(c, shape.size());
            if (covers(buffer, at)) t[i] = double(typed(at.data()));
        });
    });
    return t;
}

void copy_to_buffer(const Tensor &tensor, Halide::Runtime::Buffer<void> &buffer) {
    check_buffer(buffer, tensor.type(), tensor.shape().size(), "writing an output");
    runtime::dispatch_on_type(buffer.type(), [&](auto tag) {
        using T = decltype(tag);
        Halide::Runtime::Buffer<T> typed(*buffer.raw_buffer());
        for_each_coordinate(tensor.shape(), [&](const int64_t *c, int64_t i) {
            const std::vector<int> at = as_index(c, tensor.shape().size());
            if (!covers(buffer, at)) throw std::invalid_argument("the output buffer does not cover the stage's box");
            typed(at.data()) = T(tensor[i]);
        });
    });
}

}  // namespace strata::fuzz
