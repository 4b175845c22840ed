#include "strata/fuzz/ScalarType.h"

#include "ParseName.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace strata::fuzz {

namespace {

constexpr ScalarType kAllTypes[] = {ScalarType::Float32, ScalarType::Float64, ScalarType::Int32, ScalarType::UInt8,
                                    ScalarType::UInt16};

}  // namespace

const char *name_of(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return "float32";
    case ScalarType::Float64: return "float64";
    case ScalarType::Int32: return "int32";
    case ScalarType::UInt8: return "uint8";
    case ScalarType::UInt16: return "uint16";
    }
    return "unknown";
}

ScalarType parse_scalar_type(const std::string &name) { return parse_name(name, kAllTypes, "element type"); }

bool is_float(ScalarType type) { return type == ScalarType::Float32 || type == ScalarType::Float64; }

int bits_of(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return 32;
    case ScalarType::Float64: return 64;
    case ScalarType::Int32: return 32;
    case ScalarType::UInt8: return 8;
    case ScalarType::UInt16: return 16;
    }
    return 0;
}

double lowest_of(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return std::numeric_limits<float>::lowest();
    case ScalarType::Float64: return std::numeric_limits<double>::lowest();
    case ScalarType::Int32: return std::numeric_limits<int32_t>::lowest();
    case ScalarType::UInt8:
    case ScalarType::UInt16: return 0;
    }
    return 0;
}

double highest_of(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return std::numeric_limits<float>::max();
    case ScalarType::Float64: return std::numeric_limits<double>::max();
    case ScalarType::Int32: return std::numeric_limits<int32_t>::max();
    case ScalarType::UInt8: return 255;
    case ScalarType::UInt16: return 65535;
    }
    return 0;
}

double wrap(ScalarType type, double exact) {
    switch (type) {
    case ScalarType::Float32: return double(float(exact));
    case ScalarType::Float64: return exact;
    case ScalarType::Int32: return double(int32_t(uint32_t(int64_t(exact))));
    case ScalarType::UInt8: return double(uint8_t(int64_t(exact)));
    case ScalarType::UInt16: return double(uint16_t(int64_t(exact)));
    }
    return exact;
}

int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    const int64_t r = a % b;
    return r < 0 ? r + (b < 0 ? -b : b) : r;
}

int64_t euclid_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    return (a - euclid_mod(a, b)) / b;
}

}  // namespace strata::fuzz
