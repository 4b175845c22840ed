//===- Params.cpp - the autoscheduler's knobs and where they come from ----===//
//
// One table describes every field: its key, its environment variable, its
// type and its valid values. Parsing JSON, environment variables and
// generator keys, listing the valid keys and printing the values all read
// that table, so a new knob is one line here and one field in Params.h.
//===----------------------------------------------------------------------===//
#include "Params.h"

#include "Errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <variant>

namespace strata::autoscheduler {

namespace {

using Json = nlohmann::json;
using Member = std::variant<int Params::*, uint64_t Params::*, bool Params::*, std::string Params::*>;

struct Field {
    const char *key;
    const char *env;
    Member member;
    int64_t lo = 0;                     // integers: inclusive bounds
    uint64_t hi = 0;
    std::vector<std::string> choices;  // strings: the valid values (empty: any)
};

const std::vector<Field> &fields() {
    static const std::vector<Field> kFields = {
        {"beam_size", "STRATA_BEAM_SIZE", &Params::beam_size, 1, 4096, {}},
        {"passes", "STRATA_PASSES", &Params::passes, 1, 8, {}},
        {"seed", "STRATA_SEED", &Params::seed, 0, std::numeric_limits<uint64_t>::max(), {}},
        {"samples_per_group", "STRATA_SAMPLES_PER_GROUP", &Params::samples_per_group, 1, 1024, {}},
        {"free_stages", "STRATA_FREE_STAGES", &Params::free_stages, 0, 1 << 20, {}},
        {"two_phase", "STRATA_TWO_PHASE", &Params::two_phase, 0, 0, {}},
        {"sampling", "STRATA_SAMPLING", &Params::sampling, 0, 0, {}},
        {"memoize", "STRATA_MEMOIZE", &Params::memoize, 0, 0, {}},
        {"threads", "STRATA_THREADS", &Params::threads, 0, 256, {}},
        {"max_threads_per_block", "STRATA_MAX_THREADS_PER_BLOCK", &Params::max_threads_per_block, 32, 1024, {}},
        {"finalist_probe_ms", "STRATA_FINALIST_PROBE_MS", &Params::finalist_probe_ms, 0, 86400000, {}},
        {"code_slowdown_pct", "STRATA_CODE_SLOWDOWN_PCT", &Params::code_slowdown_pct, 0, 100, {}},
        {"parallel_reductions", "STRATA_PARALLEL_REDUCTIONS", &Params::parallel_reductions, 0, 0, {}},
        {"gpu", "STRATA_GPU", &Params::gpu, 0, 0, {}},
        {"gpu_spec_file", "STRATA_GPU_SPEC", &Params::gpu_spec_file, 0, 0, {}},
        {"weights", "STRATA_WEIGHTS", &Params::weights, 0, 0, {}},
        {"cost_model", "STRATA_COST_MODEL", &Params::cost_model, 0, 0, {"learned", "analytic"}},
        {"verbose", "STRATA_VERBOSE", &Params::verbose, 0, 3, {}},
        {"sample_index", "STRATA_SAMPLE_INDEX", &Params::sample_index, 0, 1 << 20, {}},
        {"lowered_check", "STRATA_LOWERED_CHECK", &Params::lowered_check, 0, 0, {}},
    };
    return kFields;
}

// The key that names the JSON file (generator parameters only).
constexpr const char *kConfigKey = "config";

const Field *find_field(const std::string &key) {
    for (const Field &f : fields()) {
        if (key == f.key) return &f;
    }
    return nullptr;
}

std::string key_list() {
    std::string out;
    for (const Field &f : fields()) out += std::string(out.empty() ? "" : ", ") + f.key;
    return out;
}

[[noreturn]] void fail_unknown_key(const std::string &key, const std::string &source) {
    fail(source + ": unknown key \"" + key + "\" (valid keys: " + key_list() + ")");
}

// An integer as sign and magnitude, so that every int64_t and uint64_t fits.
struct Integer {
    bool negative = false;
    uint64_t magnitude = 0;
};

std::string describe(const Integer &i) { return (i.negative ? "-" : "") + std::to_string(i.magnitude); }

std::string range_text(const Field &f) { return "[" + std::to_string(f.lo) + ", " + std::to_string(f.hi) + "]"; }

[[noreturn]] void fail_integer(const Field &f, const std::string &where, const std::string &got) {
    fail(where + " must be an integer in " + range_text(f) + ", got " + got);
}

// Decimal digits with an optional minus sign and nothing else; nullopt if the
// text is not that or does not fit 64 bits.
std::optional<Integer> parse_integer(const std::string &text) {
    Integer out;
    size_t begin = 0;
    if (!text.empty() && text[0] == '-') {
        out.negative = true;
        begin = 1;
    }
    const char *first = text.data() + begin, *last = text.data() + text.size();
    if (first == last) return std::nullopt;
    const auto [end, error] = std::from_chars(first, last, out.magnitude);
    if (error != std::errc() || end != last) return std::nullopt;
    return out;
}

void set_integer(Params &p, const Field &f, const Integer &value, const std::string &where) {
    // Every lower bound in the table is small, so -f.lo cannot overflow.
    const bool in_range = value.negative ? f.lo < 0 && value.magnitude <= uint64_t(-f.lo)
                                         : value.magnitude >= uint64_t(std::max<int64_t>(f.lo, 0)) &&
                                               value.magnitude <= f.hi;
    if (!in_range) fail_integer(f, where, describe(value));
    if (auto member = std::get_if<int Params::*>(&f.member)) {
        p.*(*member) = value.negative ? -int(value.magnitude) : int(value.magnitude);
    } else {
        p.*std::get<uint64_t Params::*>(f.member) = value.magnitude;
    }
}

void set_string(Params &p, const Field &f, const std::string &value, const std::string &where) {
    if (!f.choices.empty()) {
        bool valid = false;
        std::string listed;
        for (const std::string &c : f.choices) {
            valid |= value == c;
            listed += (listed.empty() ? "\"" : ", \"") + c + "\"";
        }
        if (!valid) fail(where + " must be one of " + listed + ", got \"" + value + "\"");
    }
    p.*std::get<std::string Params::*>(f.member) = value;
}

bool is_integer_field(const Field &f) {
    return std::holds_alternative<int Params::*>(f.member) || std::holds_alternative<uint64_t Params::*>(f.member);
}

void set_from_json(Params &p, const Field &f, const Json &v, const std::string &where) {
    if (is_integer_field(f)) {
        if (v.is_number_unsigned()) return set_integer(p, f, Integer{false, v.get<uint64_t>()}, where);
        if (v.is_number_integer()) {
            const int64_t i = v.get<int64_t>();
            return set_integer(p, f, Integer{i < 0, i < 0 ? uint64_t(-(i + 1)) + 1 : uint64_t(i)}, where);
        }
        fail_integer(f, where, v.dump());
    }
    if (auto member = std::get_if<bool Params::*>(&f.member)) {
        if (v.is_boolean()) {
            p.*(*member) = v.get<bool>();
        } else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
            p.*(*member) = v.get<int64_t>() == 1;
        } else {
            fail(where + " must be true/false or 1/0, got " + v.dump());
        }
        return;
    }
    if (!v.is_string()) fail(where + " must be a string, got " + v.dump());
    set_string(p, f, v.get<std::string>(), where);
}

void set_from_text(Params &p, const Field &f, const std::string &text, const std::string &where) {
    if (is_integer_field(f)) {
        const std::optional<Integer> value = parse_integer(text);
        if (!value) fail_integer(f, where, "\"" + text + "\"");
        return set_integer(p, f, *value, where);
    }
    if (auto member = std::get_if<bool Params::*>(&f.member)) {
        if (text == "1" || text == "true") {
            p.*(*member) = true;
        } else if (text == "0" || text == "false") {
            p.*(*member) = false;
        } else {
            fail(where + " must be 1/0 or true/false, got \"" + text + "\"");
        }
        return;
    }
    set_string(p, f, text, where);
}

std::string value_text(const Params &p, const Field &f) {
    return std::visit(
        [&](auto member) -> std::string {
            const auto &value = p.*member;
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return value.empty() ? "(default)" : value;
            } else if constexpr (std::is_same_v<T, bool>) {
                return value ? "1" : "0";
            } else {
                return std::to_string(value);
            }
        },
        f.member);
}

std::string read_config_file(const std::string &path, const std::string &named_by) {
    std::ifstream in(path);
    if (!in) fail(named_by + " names '" + path + "', which cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

void Params::apply_json(const std::string &json_text, const std::string &source) {
    Json j;
    try {
        j = Json::parse(json_text);
    } catch (const Json::parse_error &e) {
        // nlohmann's message carries the line and column of the fault.
        std::string what = e.what();
        const size_t start = what.find("] ");
        fail(source + " is not valid JSON: " + (start == std::string::npos ? what : what.substr(start + 2)));
    }
    if (!j.is_object()) fail(source + " must hold a JSON object of keys, got a " + std::string(j.type_name()));
    for (auto it = j.begin(); it != j.end(); ++it) {
        const Field *f = find_field(it.key());
        if (!f) fail_unknown_key(it.key(), source);
        set_from_json(*this, *f, it.value(), source + ": \"" + it.key() + "\"");
    }
}

void Params::apply_text(const std::string &key, const std::string &value, const std::string &source) {
    const Field *f = find_field(key);
    if (!f) fail_unknown_key(key, source);
    set_from_text(*this, *f, value, source);
}

Params Params::resolve(const std::map<std::string, std::string> &generator_keys) {
    Params p;
    if (auto config = generator_keys.find(kConfigKey); config != generator_keys.end()) {
        p.apply_json(read_config_file(config->second, "autoscheduler.config"),
                     "config file '" + config->second + "' (autoscheduler.config)");
    } else if (const char *path = std::getenv("STRATA_CONFIG"); path && *path) {
        p.apply_json(read_config_file(path, "STRATA_CONFIG"), "config file '" + std::string(path) + "' (STRATA_CONFIG)");
    }
    for (const Field &f : fields()) {
        const char *value = std::getenv(f.env);
        if (value && *value) set_from_text(p, f, value, f.env);
    }
    for (const auto &[key, value] : generator_keys) {
        if (key == kConfigKey) continue;
        const std::string source = "autoscheduler." + key;
        const Field *f = find_field(key);
        if (!f) fail(source + " is not a Strata parameter (valid keys: " + std::string(kConfigKey) + ", " + key_list() + ")");
        set_from_text(p, *f, value, source);
    }
    return p;
}

std::vector<std::string> Params::keys() {
    std::vector<std::string> out;
    for (const Field &f : fields()) out.emplace_back(f.key);
    return out;
}

std::string Params::environment_variable(const std::string &key) {
    const Field *f = find_field(key);
    return f ? f->env : "";
}

std::string Params::to_string() const {
    std::string out;
    for (const Field &f : fields()) out += std::string(out.empty() ? "" : " ") + f.key + "=" + value_text(*this, f);
    return out;
}

}  // namespace strata::autoscheduler
