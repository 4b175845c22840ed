// conv_layer, in plain C++: relu(bias + the 3×3 zero-padded convolution),
// one output element at a time, accumulating in double.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>

namespace {

void conv_layer_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto weights = args.input<float>("weights");
    auto bias = args.input<float>("bias");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent(), c_in = input.dim(2).extent();
    output.for_each_element([&](int x, int y, int co, int n) {
        double sum = bias(co);
        for (int ci = 0; ci < c_in; ++ci) {
            for (int ry = 0; ry < 3; ++ry) {
                for (int rx = 0; rx < 3; ++rx) {
                    const int sx = x + rx - 1, sy = y + ry - 1;
                    if (sx < 0 || sx >= width || sy < 0 || sy >= height) continue;
                    sum += double(input(sx, sy, ci, n)) * double(weights(rx, ry, ci, co));
                }
            }
        }
        output(x, y, co, n) = float(std::max(sum, 0.0));
    });
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // Batch 2, C_in 24, C_out 64, 72 × 18: 3 × 5 × 4 = 60 blocks of the manual
    // schedule, partial tiles in x and y (72 = 2 × 32 + 8, 18 = 4 × 4 + 2),
    // wide enough for 64-wide tiles, and a 216-term sum per output.
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {72, 18, 24, 2};
    spec.input_extents["weights"] = {3, 3, 24, 64};
    spec.input_extents["bias"] = {64};
    spec.output_extents["output"] = {72, 18, 64, 2};
    // Signed weights and biases, so that the ReLU clips about half the outputs.
    spec.input_ranges["weights"] = {-0.5, 0.5};
    spec.input_ranges["bias"] = {-0.5, 0.5};
    // float32 accumulation of 216 products of magnitude ≤ 0.5: the absolute
    // error stays below 216 × 0.5 × 2^-24 × a small factor; sums that cancel
    // to near zero need the absolute term.
    spec.tolerance = {1e-4, 1e-4};
    spec.reference = conv_layer_reference;
    return spec;
}
