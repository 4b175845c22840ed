//===- GpuSpecJson.cpp - GPU specs from JSON files ------------------------===//
//
// Two forms:
//   {"base": "a100", "sm_count": 100, ...}   a built-in spec with overrides
//   {"name": "my_gpu", "sm_count": 84, ...}  a full spec: every field that
//                                            has no architectural default
// Field names are the GpuSpec member names; an optional "schema" must be
// "strata.gpu_spec.v1" (written by to_json, so that a later format is
// refused rather than misread). Fields the schema no longer has are read
// and ignored (is_retired_field). Unknown fields, wrong types, impossible or
// implausibly large values are errors that name the file and the field
// (syntax errors: the line): a typo in a spec would otherwise silently leave
// the default in place, and a stray exponent would price every kernel at zero.
//===----------------------------------------------------------------------===//
#include "strata/costmodel/GpuSpec.h"

#include "strata/costmodel/JsonText.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <variant>

namespace strata::costmodel {

namespace {

using Json = nlohmann::ordered_json;
using Member = std::variant<std::string GpuSpec::*, int GpuSpec::*, int64_t GpuSpec::*, double GpuSpec::*>;

struct Field {
    const char *name;
    Member member;
    // A full spec (no "base") must give it: the struct default is a placeholder.
    bool required_without_base;
    // Largest plausible value (numbers only): well beyond any GPU, far below a typo's 1e300.
    double max;
};

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// clang-format off
const Field kFields[] = {
    {"name", &GpuSpec::name, true, 0},
    {"marketing_name", &GpuSpec::marketing_name, false, 0},
    {"compute_capability", &GpuSpec::compute_capability, true, 200},
    {"sm_count", &GpuSpec::sm_count, true, 1e4},
    {"warp_size", &GpuSpec::warp_size, false, 1024},
    {"max_threads_per_block", &GpuSpec::max_threads_per_block, false, 65536},
    {"max_threads_per_sm", &GpuSpec::max_threads_per_sm, true, 1 << 20},
    {"max_warps_per_sm", &GpuSpec::max_warps_per_sm, true, 1 << 15},
    {"max_blocks_per_sm", &GpuSpec::max_blocks_per_sm, true, 1 << 12},
    {"max_grid_dim_x", &GpuSpec::max_grid_dim_x, false, 1e12},
    {"max_grid_dim_yz", &GpuSpec::max_grid_dim_yz, false, 1e9},
    {"max_block_dim_xy", &GpuSpec::max_block_dim_xy, false, 65536},
    {"max_block_dim_z", &GpuSpec::max_block_dim_z, false, 65536},
    {"registers_per_sm", &GpuSpec::registers_per_sm, false, 1 << 24},
    {"max_registers_per_thread", &GpuSpec::max_registers_per_thread, false, 65536},
    {"register_allocation_unit", &GpuSpec::register_allocation_unit, false, 65536},
    {"shared_memory_per_block", &GpuSpec::shared_memory_per_block, false, 16 * GiB},
    {"shared_memory_per_block_optin", &GpuSpec::shared_memory_per_block_optin, false, 16 * GiB},
    {"shared_memory_per_sm", &GpuSpec::shared_memory_per_sm, true, 16 * GiB},
    {"shared_memory_banks", &GpuSpec::shared_memory_banks, false, 1024},
    {"shared_memory_bank_bytes", &GpuSpec::shared_memory_bank_bytes, false, 64},
    {"device_memory_bytes", &GpuSpec::device_memory_bytes, false, 1024.0 * 1024 * GiB},
    {"l2_cache_bytes", &GpuSpec::l2_cache_bytes, true, 1024 * GiB},
    {"dram_bandwidth_bytes_per_second", &GpuSpec::dram_bandwidth_bytes_per_second, true, 1e15},
    {"l2_bandwidth_bytes_per_second", &GpuSpec::l2_bandwidth_bytes_per_second, true, 1e16},
    {"global_memory_sector_bytes", &GpuSpec::global_memory_sector_bytes, false, 4096},
    {"global_memory_cache_line_bytes", &GpuSpec::global_memory_cache_line_bytes, false, 4096},
    {"dependent_step_cycles", &GpuSpec::dependent_step_cycles, false, 1e6},
    {"l1_miss_latency_seconds", &GpuSpec::l1_miss_latency_seconds, false, 1},
    {"boost_clock_hz", &GpuSpec::boost_clock_hz, true, 1e11},
    {"fp32_lanes_per_sm", &GpuSpec::fp32_lanes_per_sm, true, 65536},
    {"sfu_lanes_per_sm", &GpuSpec::sfu_lanes_per_sm, false, 65536},
    {"kernel_launch_seconds", &GpuSpec::kernel_launch_seconds, false, 1},
};
// clang-format on

class SpecError {
public:
    explicit SpecError(std::string source) : source_(std::move(source)) {}
    [[noreturn]] void fail(const std::string &field, const std::string &problem) const {
        throw std::runtime_error("GPU spec " + source_ + ": field '" + field + "' " + problem);
    }
    [[noreturn]] void fail(const std::string &problem) const {
        throw std::runtime_error("GPU spec " + source_ + ": " + problem);
    }

private:
    std::string source_;
};

const Field *find_field(const std::string &name) {
    for (const Field &f : kFields) {
        if (name == f.name) return &f;
    }
    return nullptr;
}

template <typename Int>
Int integer_value(const Json &value, const std::string &field, const SpecError &error) {
    if (!value.is_number_integer()) error.fail(field, "must be an integer, not " + value.dump());
    if (value.is_number_unsigned()) {
        const uint64_t v = value.get<uint64_t>();
        if (v > uint64_t(std::numeric_limits<Int>::max())) error.fail(field, "is out of range: " + value.dump());
        return Int(v);
    }
    const int64_t v = value.get<int64_t>();
    if (v < int64_t(std::numeric_limits<Int>::min()) || v > int64_t(std::numeric_limits<Int>::max())) {
        error.fail(field, "is out of range: " + value.dump());
    }
    return Int(v);
}

void assign(GpuSpec &spec, const Field &field, const Json &value, const SpecError &error) {
    std::visit(
        [&](auto member) {
            using T = std::decay_t<decltype(spec.*member)>;
            if constexpr (std::is_same_v<T, std::string>) {
                if (!value.is_string()) error.fail(field.name, "must be a string, not " + value.dump());
                spec.*member = value.get<std::string>();
            } else if constexpr (std::is_same_v<T, double>) {
                if (!value.is_number()) error.fail(field.name, "must be a number, not " + value.dump());
                spec.*member = value.get<double>();
            } else {
                spec.*member = integer_value<T>(value, field.name, error);
            }
            if constexpr (!std::is_same_v<T, std::string>) {
                const double v = double(spec.*member);
                if (!std::isfinite(v)) error.fail(field.name, "must be finite");
                if (v > field.max) {
                    error.fail(field.name, "is implausibly large: " + value.dump() + " (at most " +
                                               Json(field.max).dump() + ")");
                }
            }
        },
        field.member);
}

// Values a kernel-limit computation would divide by or compare against.
void validate(const GpuSpec &spec, const SpecError &error) {
    if (spec.name.empty()) error.fail("name", "must not be empty");
    for (const Field &field : kFields) {
        std::visit(
            [&](auto member) {
                using T = std::decay_t<decltype(spec.*member)>;
                if constexpr (!std::is_same_v<T, std::string>) {
                    // device_memory_bytes 0 means "not known": no memory budget.
                    const bool may_be_zero = std::string(field.name) == "device_memory_bytes";
                    if (!(spec.*member > 0) && !(may_be_zero && spec.*member == 0)) {
                        error.fail(field.name, "must be positive");
                    }
                }
            },
            field.member);
    }
    if (spec.max_warps_per_sm * spec.warp_size != spec.max_threads_per_sm) {
        error.fail("max_warps_per_sm", "times warp_size (" + std::to_string(spec.max_warps_per_sm) + " * " +
                                           std::to_string(spec.warp_size) + ") differs from max_threads_per_sm (" +
                                           std::to_string(spec.max_threads_per_sm) + ")");
    }
    if (spec.shared_memory_per_block > spec.shared_memory_per_block_optin) {
        error.fail("shared_memory_per_block", "exceeds shared_memory_per_block_optin");
    }
    if (spec.shared_memory_per_block_optin > spec.shared_memory_per_sm) {
        error.fail("shared_memory_per_block_optin", "exceeds shared_memory_per_sm");
    }
    if (spec.max_threads_per_block > spec.max_threads_per_sm) {
        error.fail("max_threads_per_block", "exceeds max_threads_per_sm");
    }
}

// Fields an earlier build of this schema wrote and this one no longer
// reads: the profiling logs and featurizations of that time carry them
// (docs/gpu's H200 logs, with the fitted model's DRAM latency, 09cb000,
// retired with it in b8a424b), and they must stay readable.
bool is_retired_field(const std::string &key) { return key == "dram_latency_seconds"; }

}  // namespace

GpuSpec GpuSpec::from_json(const Json &document, const std::string &source_name) {
    const SpecError error(source_name);
    if (!document.is_object()) error.fail("must be a JSON object, not " + std::string(document.type_name()));

    GpuSpec spec;
    if (const auto schema = document.find("schema"); schema != document.end() && *schema != kGpuSpecSchema) {
        error.fail("schema", "is " + schema->dump() + ", this build reads \"" + kGpuSpecSchema + "\"");
    }
    const bool has_base = document.contains("base");
    if (has_base) {
        const Json &base = document["base"];
        if (!base.is_string()) error.fail("base", "must be the name of a built-in GPU, not " + base.dump());
        try {
            spec = by_name(base.get<std::string>());
        } catch (const std::invalid_argument &e) {
            error.fail("base", e.what());
        }
        const size_t overrides = document.size() - 1 - document.count("schema");
        if (!document.contains("name") && overrides > 0) spec.name += "-custom";
    } else {
        for (const Field &field : kFields) {
            if (field.required_without_base && !document.contains(field.name)) {
                error.fail(field.name, "is missing (a spec without \"base\" must give every hardware number)");
            }
        }
    }

    for (const auto &[key, value] : document.items()) {
        if (key == "base" || key == "schema" || is_retired_field(key)) continue;
        const Field *field = find_field(key);
        if (!field) error.fail(key, "is not a GPU spec field");
        assign(spec, *field, value, error);
    }
    validate(spec, error);
    return spec;
}

GpuSpec GpuSpec::from_json_text(const std::string &text, const std::string &source_name) {
    Json document;
    try {
        document = parse_json_text(text, source_name);
    } catch (const JsonSyntaxError &e) {
        throw std::runtime_error(std::string("GPU spec ") + e.what());
    }
    return from_json(document, source_name);
}

Json GpuSpec::to_json() const {
    Json out = Json::object();
    out["schema"] = kGpuSpecSchema;
    for (const Field &field : kFields) {
        std::visit([&](auto member) { out[field.name] = this->*member; }, field.member);
    }
    return out;
}

std::string GpuSpec::to_json_text() const { return to_json().dump(2); }

std::vector<std::string> GpuSpec::differences(const GpuSpec &other) const {
    std::vector<std::string> out;
    for (const Field &field : kFields) {
        std::visit(
            [&](auto member) {
                using T = std::decay_t<decltype(this->*member)>;
                if constexpr (!std::is_same_v<T, std::string>) {
                    if (this->*member != other.*member) {
                        out.push_back(std::string(field.name) + " " + Json(this->*member).dump() + " vs " +
                                      Json(other.*member).dump());
                    }
                }
            },
            field.member);
    }
    return out;
}

GpuSpec GpuSpec::from_name_or_file(const std::string &name_or_path) {
    const std::string suffix = ".json";
    const bool is_file = name_or_path.size() > suffix.size() &&
                         name_or_path.compare(name_or_path.size() - suffix.size(), suffix.size(), suffix) == 0;
    return is_file ? from_json_file(name_or_path) : by_name(name_or_path);
}

GpuSpec GpuSpec::from_json_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("GPU spec " + path + ": cannot open the file");
    std::ostringstream text;
    text << in.rdbuf();
    return from_json_text(text.str(), path);
}

}  // namespace strata::costmodel
