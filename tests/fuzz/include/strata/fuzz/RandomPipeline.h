// RandomPipeline: draws a random pipeline description from a seed and a
// budget — the fuzzing campaign's input and a source of training pipelines.
//
// The same (seed, budget) gives the same description on every platform.
// The budget is the number of computed stages to draw (helper inputs such
// as convolution weights are extra). A drawing mixes imaging operations
// (stencils with boundary conditions, pointwise chains, resampling,
// histograms, scans, gathers) with DNN-shaped ones (small convolutions,
// matrix products, pooling, softmax and normalization along a dimension),
// in float32, float64, int32, uint8 and uint16, with tuples and several
// outputs; sizes range from 1x1 to skinny images of hundreds of thousands of
// rows. Value ranges are tracked while drawing so that no stage overflows a
// 32-bit integer or leaves the magnitudes a float tolerance can judge.
//
// Example:
//   Description d = draw_random_pipeline(/*seed=*/17, /*budget=*/12);
//   write_description(d, "seed17.json");
#pragma once

#include "strata/fuzz/Description.h"

#include <cstdint>

namespace strata::fuzz {

Description draw_random_pipeline(uint64_t seed, int budget);

}  // namespace strata::fuzz
