#include "strata/runtime/PipelineRegistry.h"

#include <stdexcept>

namespace strata::runtime {

namespace {

// A function-local static: registration runs from other files' static
// initializers, in an order the language leaves open.
std::vector<RegisteredPipeline> &registry() {
    static std::vector<RegisteredPipeline> pipelines;
    return pipelines;
}

std::string registered_names() {
    std::string names;
    for (const RegisteredPipeline &p : registry()) names += (names.empty() ? "" : ", ") + std::string(p.metadata->name);
    return names.empty() ? "none" : names;
}

}  // namespace

const std::vector<RegisteredPipeline> &registered_pipelines() { return registry(); }

const RegisteredPipeline &find_registered_pipeline(const std::string &name) {
    if (registry().empty()) {
        throw std::invalid_argument(
            "no pipelines are linked into this program (link a pipeline's object with its "
            "-e registration file, e.g. with strata_add_bench)");
    }
    if (name.empty()) {
        if (registry().size() == 1) return registry().front();
        throw std::invalid_argument("name the pipeline to run; registered pipelines: " + registered_names());
    }
    for (const RegisteredPipeline &p : registry()) {
        if (name == p.metadata->name) return p;
    }
    throw std::invalid_argument("no pipeline named '" + name +
                                "' is registered; registered pipelines: " + registered_names());
}

}  // namespace strata::runtime

extern "C" void halide_register_argv_and_metadata(int (*filter_argv_call)(void **),
                                                  const struct halide_filter_metadata_t *filter_metadata,
                                                  const char *const * /*extra_key_value_pairs*/) {
    // A stub object of a failed generator run registers a null metadata; skip it.
    if (!filter_argv_call || !filter_metadata || !filter_metadata->name) return;
    strata::runtime::registry().push_back({filter_argv_call, filter_metadata});
}
