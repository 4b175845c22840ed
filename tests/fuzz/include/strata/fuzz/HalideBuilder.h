// HalideBuilder: a pipeline description as Halide Funcs — the algorithm only,
// with no schedule — for an autoscheduler to schedule (through the random
// pipeline generator) or for a test to JIT-compile.
//
// Each stage becomes one Func named after it (a few operations add helper
// Funcs: a boundary condition, a pooling sum). The builder never sets
// estimates; the generator does, from the description's boxes.
//
// Example:
//   std::map<std::string, Halide::Func> inputs = {{"in0", Halide::Func(image_param)}};
//   BuiltPipeline built = build_pipeline(description, inputs);
//   Halide::Func out = built.stages[description.outputs[0]];
#pragma once

#include "strata/fuzz/Description.h"

#include "Halide.h"

#include <map>
#include <string>
#include <vector>

namespace strata::fuzz {

struct BuiltPipeline {
    std::vector<Halide::Func> stages;   // one per stage, inputs included
    std::vector<Halide::Func> helpers;  // the other Funcs the builder defined
};

Halide::Type halide_type(ScalarType type);

// `inputs` maps each input stage's name to the Func that reads it (a
// generator Input or an ImageParam). Throws std::invalid_argument for a
// missing input; Halide's own errors pass through.
BuiltPipeline build_pipeline(const Description &description, const std::map<std::string, Halide::Func> &inputs);

// Computes every Func the builder defined at the root, serially on the host:
// the plain schedule that the campaign's control run uses.
void schedule_compute_root(const BuiltPipeline &built, const Description &description);

// The Halide region of a stage's box, for estimates and realizations.
Halide::Region box_region(const Shape &shape);

}  // namespace strata::fuzz
