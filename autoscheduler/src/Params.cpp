#include "Params.h"

#include "Errors.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace strata::autoscheduler {

namespace {

// One setter per field, shared by the JSON keys and the environment variables.
using Setter = std::function<void(Params &, const nlohmann::json &, const std::string &where)>;

int64_t as_integer(const nlohmann::json &v, const std::string &where, int64_t lo, int64_t hi) {
    if (!v.is_number_integer()) fail(where + " must be an integer, got " + v.dump());
    const int64_t i = v.get<int64_t>();
    if (i < lo || i > hi) {
        fail(where + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
             std::to_string(i));
    }
    return i;
}

bool as_bool(const nlohmann::json &v, const std::string &where) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer() && (v.get<int>() == 0 || v.get<int>() == 1)) return v.get<int>() == 1;
    fail(where + " must be true/false or 1/0, got " + v.dump());
}

std::string as_string(const nlohmann::json &v, const std::string &where) {
    if (!v.is_string()) fail(where + " must be a string, got " + v.dump());
    return v.get<std::string>();
}

struct Field {
    const char *key;
    const char *env;
    bool string_valued;
    Setter set;
};

const std::vector<Field> &fields() {
    static const std::vector<Field> kFields = {
        {"beam_size", "STRATA_BEAM_SIZE", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.beam_size = int(as_integer(v, w, 1, 4096)); }},
        {"passes", "STRATA_PASSES", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.passes = int(as_integer(v, w, 1, 8)); }},
        {"seed", "STRATA_SEED", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) {
             p.seed = uint64_t(as_integer(v, w, 0, INT64_MAX));
         }},
        {"samples_per_group", "STRATA_SAMPLES_PER_GROUP", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) {
             p.samples_per_group = int(as_integer(v, w, 1, 1024));
         }},
        {"free_stages", "STRATA_FREE_STAGES", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) {
             p.free_stages = int(as_integer(v, w, 0, 1 << 20));
         }},
        {"two_phase", "STRATA_TWO_PHASE", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.two_phase = as_bool(v, w); }},
        {"memoize", "STRATA_MEMOIZE", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.memoize = as_bool(v, w); }},
        {"parallel_reductions", "STRATA_PARALLEL_REDUCTIONS", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.parallel_reductions = as_bool(v, w); }},
        {"max_threads_per_block", "STRATA_MAX_THREADS_PER_BLOCK", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) {
             p.max_threads_per_block = int(as_integer(v, w, 32, 1024));
         }},
        {"gpu", "STRATA_GPU", true,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.gpu = as_string(v, w); }},
        {"gpu_spec_file", "STRATA_GPU_SPEC", true,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.gpu_spec_file = as_string(v, w); }},
        {"weights", "STRATA_WEIGHTS", true,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.weights = as_string(v, w); }},
        {"cost_model", "STRATA_COST_MODEL", true,
         [](Params &p, const nlohmann::json &v, const std::string &w) {
             p.cost_model = as_string(v, w);
             if (p.cost_model != "learned" && p.cost_model != "analytic") {
                 fail(w + " must be \"learned\" or \"analytic\", got \"" + p.cost_model + "\"");
             }
         }},
        {"verbose", "STRATA_VERBOSE", false,
         [](Params &p, const nlohmann::json &v, const std::string &w) { p.verbose = int(as_integer(v, w, 0, 3)); }},
    };
    return kFields;
}

}  // namespace

void Params::apply_json(const std::string &json_text, const std::string &source) {
    nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) fail(source + " is not a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const Field &f : fields()) {
            if (it.key() == f.key) {
                f.set(*this, it.value(), source + ": \"" + it.key() + "\"");
                known = true;
            }
        }
        if (!known) {
            std::string keys;
            for (const Field &f : fields()) keys += std::string(keys.empty() ? "" : ", ") + f.key;
            fail(source + ": unknown key \"" + it.key() + "\" (known: " + keys + ")");
        }
    }
}

Params Params::from_environment() {
    Params p;
    if (const char *config = std::getenv("STRATA_CONFIG"); config && *config) {
        std::ifstream in(config);
        if (!in) fail("STRATA_CONFIG names '" + std::string(config) + "', which cannot be read");
        std::stringstream text;
        text << in.rdbuf();
        p.apply_json(text.str(), std::string("STRATA_CONFIG file '") + config + "'");
    }
    for (const Field &f : fields()) {
        const char *value = std::getenv(f.env);
        if (!value || !*value) continue;
        nlohmann::json v;
        if (f.string_valued) {
            v = std::string(value);
        } else {
            v = nlohmann::json::parse(value, nullptr, false);
            if (v.is_discarded()) fail(std::string(f.env) + "=" + value + " is not a number");
        }
        f.set(p, v, f.env);
    }
    return p;
}

std::string Params::to_string() const {
    std::ostringstream s;
    s << "beam_size=" << beam_size << " passes=" << passes << " seed=" << seed
      << " samples_per_group=" << samples_per_group << " free_stages=" << free_stages
      << " max_threads_per_block=" << max_threads_per_block << " two_phase=" << two_phase << " memoize=" << memoize << " parallel_reductions=" << parallel_reductions
      << " gpu=" << (gpu.empty() ? "(from target)" : gpu) << " gpu_spec_file=" << gpu_spec_file
      << " weights=" << (weights.empty() ? "(default)" : weights) << " cost_model=" << cost_model;
    return s.str();
}

}  // namespace strata::autoscheduler
