#include "strata/runtime/PipelineSignature.h"

#include "strata/runtime/TypeDispatch.h"

#include <stdexcept>

namespace strata::runtime {

namespace {

ArgumentKind to_kind(int32_t kind, const char *name) {
    switch (kind) {
    case halide_argument_kind_input_scalar: return ArgumentKind::InputScalar;
    case halide_argument_kind_input_buffer: return ArgumentKind::InputBuffer;
    case halide_argument_kind_output_buffer: return ArgumentKind::OutputBuffer;
    default:
        throw std::invalid_argument("argument '" + std::string(name) +
                                    "' has unknown kind " + std::to_string(kind));
    }
}

std::optional<halide_scalar_value_t> copy_scalar(const halide_scalar_value_t *value) {
    if (!value) return std::nullopt;
    return *value;
}

}  // namespace

PipelineSignature PipelineSignature::from_metadata(const halide_filter_metadata_t *metadata) {
    if (!metadata) throw std::invalid_argument("pipeline metadata is null");
    if (metadata->version != halide_filter_metadata_t::VERSION) {
        throw std::invalid_argument("pipeline metadata has version " + std::to_string(metadata->version) +
                                    ", expected " + std::to_string(halide_filter_metadata_t::VERSION));
    }
    PipelineSignature signature;
    signature.name_ = metadata->name ? metadata->name : "";
    signature.target_ = metadata->target ? metadata->target : "";
    for (int i = 0; i < metadata->num_arguments; ++i) {
        const halide_filter_argument_t &raw = metadata->arguments[i];
        ArgumentInfo info;
        info.name = raw.name;
        info.kind = to_kind(raw.kind, raw.name);
        info.dimensions = raw.dimensions;
        info.type = raw.type;
        if (!info.is_buffer()) {
            info.scalar_default = copy_scalar(raw.scalar_def);
            info.scalar_min = copy_scalar(raw.scalar_min);
            info.scalar_max = copy_scalar(raw.scalar_max);
        } else {
            info.estimates.resize(info.dimensions);
            for (int d = 0; raw.buffer_estimates && d < info.dimensions; ++d) {
                const int64_t *min = raw.buffer_estimates[2 * d];
                const int64_t *extent = raw.buffer_estimates[2 * d + 1];
                if (min && extent) info.estimates[d] = DimensionEstimate{*min, *extent};
            }
        }
        signature.arguments_.push_back(std::move(info));
    }
    return signature;
}

const ArgumentInfo &PipelineSignature::argument(const std::string &name) const {
    for (const auto &arg : arguments_) {
        if (arg.name == name) return arg;
    }
    throw std::out_of_range("pipeline '" + name_ + "' has no argument named '" + name + "'");
}

std::vector<std::string> PipelineSignature::output_names() const {
    std::vector<std::string> names;
    for (const auto &arg : arguments_) {
        if (arg.is_output()) names.push_back(arg.name);
    }
    return names;
}

double scalar_as_double(const halide_scalar_value_t &value, halide_type_t type) {
    switch (type.code) {
    case halide_type_float:
        return type.bits == 64 ? value.u.f64 : value.u.f32;
    case halide_type_int:
        switch (type.bits) {
        case 8: return value.u.i8;
        case 16: return value.u.i16;
        case 32: return value.u.i32;
        case 64: return double(value.u.i64);
        }
        break;
    case halide_type_uint:
        switch (type.bits) {
        case 1: return value.u.b ? 1 : 0;
        case 8: return value.u.u8;
        case 16: return value.u.u16;
        case 32: return value.u.u32;
        case 64: return double(value.u.u64);
        }
        break;
    default:
        break;
    }
    throw std::invalid_argument("unsupported scalar type " + type_name(type));
}

halide_scalar_value_t scalar_from_double(double v, halide_type_t type) {
    halide_scalar_value_t value{};
    switch (type.code) {
    case halide_type_float:
        if (type.bits == 64) value.u.f64 = v; else value.u.f32 = float(v);
        return value;
    case halide_type_int:
        switch (type.bits) {
        case 8: value.u.i8 = int8_t(v); return value;
        case 16: value.u.i16 = int16_t(v); return value;
        case 32: value.u.i32 = int32_t(v); return value;
        case 64: value.u.i64 = int64_t(v); return value;
        }
        break;
    case halide_type_uint:
        switch (type.bits) {
        case 1: value.u.b = v != 0; return value;
        case 8: value.u.u8 = uint8_t(v); return value;
        case 16: value.u.u16 = uint16_t(v); return value;
        case 32: value.u.u32 = uint32_t(v); return value;
        case 64: value.u.u64 = uint64_t(v); return value;
        }
        break;
    default:
        break;
    }
    throw std::invalid_argument("unsupported scalar type " + type_name(type));
}

}  // namespace strata::runtime
