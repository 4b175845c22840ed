// TypeDispatch: call a generic lambda with a value of the C++ type that
// matches a runtime halide_type_t.
//
// Compiled pipelines describe their arguments with halide_type_t; code that
// fills, poisons or compares buffers needs the static element type. This maps
// one to the other for every type a Halide buffer argument can have.
//
// Example:
//   strata::runtime::dispatch_on_type(buffer.type(), [&](auto tag) {
//       using T = decltype(tag);
//       buffer.as<T>().fill(T(1));
//   });
#pragma once

#include <HalideRuntime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace strata::runtime {

// A printable name such as "float32" or "uint8".
std::string type_name(halide_type_t type);

template <typename F>
decltype(auto) dispatch_on_type(halide_type_t type, F &&f) {
    switch (type.code) {
    case halide_type_float:
        if (type.bits == 32) return f(float{});
        if (type.bits == 64) return f(double{});
        break;
    case halide_type_int:
        if (type.bits == 8) return f(int8_t{});
        if (type.bits == 16) return f(int16_t{});
        if (type.bits == 32) return f(int32_t{});
        if (type.bits == 64) return f(int64_t{});
        break;
    case halide_type_uint:
        if (type.bits == 1) return f(bool{});
        if (type.bits == 8) return f(uint8_t{});
        if (type.bits == 16) return f(uint16_t{});
        if (type.bits == 32) return f(uint32_t{});
        if (type.bits == 64) return f(uint64_t{});
        break;
    default:
        break;
    }
    throw std::invalid_argument("unsupported element type " + type_name(type));
}

}  // namespace strata::runtime
