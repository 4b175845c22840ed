// PipelineRegistry: the AOT-compiled pipelines linked into this program.
//
// A Halide generator run with `-e registration` emits a small C++ file whose
// static initializer calls halide_register_argv_and_metadata() with the
// pipeline's argv entry point and metadata. This file defines that function
// and keeps what it is given, so a tool such as strata-bench can run any
// pipeline it was linked with, knowing nothing of it at compile time.
//
// Example:
//   for (const RegisteredPipeline &p : registered_pipelines()) std::printf("%s\n", p.metadata->name);
//   const RegisteredPipeline &only = find_registered_pipeline("");  // the only one, or an error
#pragma once

#include "strata/runtime/PipelineSignature.h"

#include <string>
#include <vector>

extern "C" void halide_register_argv_and_metadata(int (*filter_argv_call)(void **),
                                                  const struct halide_filter_metadata_t *filter_metadata,
                                                  const char *const *extra_key_value_pairs);

namespace strata::runtime {

struct RegisteredPipeline {
    ArgvFunction argv = nullptr;
    const halide_filter_metadata_t *metadata = nullptr;
};

// In registration (link) order.
const std::vector<RegisteredPipeline> &registered_pipelines();

// The pipeline named `name`; with an empty name, the only registered one.
// Throws std::invalid_argument listing what is registered otherwise.
const RegisteredPipeline &find_registered_pipeline(const std::string &name);

}  // namespace strata::runtime
