// A hand-written stand-in for an AOT-compiled pipeline, with Halide's calling
// convention (metadata + argv entry point, bounds queries), so the runtime
// and the checker can be tested without compiling anything:
//   out(x) = in(x) + in(x + 1), over float32 buffers,
// plus knobs that make it misbehave the way a wrong schedule would.
#pragma once

#include <HalideBuffer.h>
#include <HalideRuntime.h>

namespace strata::testing {

struct FakePipelineFaults {
    int skip_element = -1;   // leave out(skip_element) unwritten
    float bias = 0.0f;       // add to every output element
    int error_code = 0;      // return this instead of running
};

// Sets the faults the next calls use.
void set_fake_pipeline_faults(const FakePipelineFaults &faults);

int fake_pipeline_argv(void **args);
const halide_filter_metadata_t *fake_pipeline_metadata();

// out(x) = in(clamp(x, in.min, in.max)): reads its input through a boundary
// condition on the input's own bounds, so a bounds query cannot size the
// input; its metadata estimates the input as [0, 16).
int fake_clamped_pipeline_argv(void **args);
const halide_filter_metadata_t *fake_clamped_pipeline_metadata();

}  // namespace strata::testing
