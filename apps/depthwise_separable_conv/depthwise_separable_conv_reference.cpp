// depthwise_separable_conv, in plain C++ (NHWC): the depthwise 3×3 with zero
// padding, bias and ReLU into a temporary, then the 1×1 convolution, bias and
// ReLU, accumulating in double.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <vector>

namespace {

void depthwise_separable_conv_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto dw_weights = args.input<float>("dw_weights");
    auto dw_bias = args.input<float>("dw_bias");
    auto pw_weights = args.input<float>("pw_weights");
    auto pw_bias = args.input<float>("pw_bias");
    auto output = args.output<float>("output");
    const int c_in = input.dim(0).extent(), width = input.dim(1).extent(), height = input.dim(2).extent();
    const int batch = input.dim(3).extent();

    Halide::Runtime::Buffer<double> dw(c_in, width, height, batch);
    dw.for_each_element([&](int c, int x, int y, int n) {
        double sum = dw_bias(c);
        for (int ry = 0; ry < 3; ++ry) {
            for (int rx = 0; rx < 3; ++rx) {
                const int sx = x + rx - 1, sy = y + ry - 1;
                if (sx < 0 || sx >= width || sy < 0 || sy >= height) continue;
                sum += double(input(c, sx, sy, n)) * double(dw_weights(rx, ry, c));
            }
        }
        dw(c, x, y, n) = std::max(sum, 0.0);
    });
    output.for_each_element([&](int co, int x, int y, int n) {
        double sum = pw_bias(co);
        for (int ci = 0; ci < c_in; ++ci) sum += dw(ci, x, y, n) * double(pw_weights(0, 0, ci, co));
        output(co, x, y, n) = float(std::max(sum, 0.0));
    });
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // Batch 2, 72 × 10 pixels, 24 → 80 channels: C_in below the 32-wide
    // depthwise thread tile (guarded) and C_out a partial 64-channel tile.
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {24, 72, 10, 2};
    spec.input_extents["dw_weights"] = {3, 3, 24};
    spec.input_extents["dw_bias"] = {24};
    spec.input_extents["pw_weights"] = {1, 1, 24, 80};
    spec.input_extents["pw_bias"] = {80};
    spec.output_extents["output"] = {80, 72, 10, 2};
    // Signed weights and biases, so that both ReLUs clip.
    for (const char *name : {"dw_weights", "dw_bias", "pw_weights", "pw_bias"}) spec.input_ranges[name] = {-0.5, 0.5};
    // Sums of 9 and 24 products: float32 rounding stays near 1e-6.
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = depthwise_separable_conv_reference;
    return spec;
}
