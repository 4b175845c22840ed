// resnet_block, in plain C++: conv3x3 → batch norm → ReLU into a temporary,
// then conv3x3 → batch norm → + input → ReLU, accumulating in double.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

using Tensor = Halide::Runtime::Buffer<double>;

// bn(conv3x3(in)) at every element of `out`, zero padding 1.
template <typename In>
void conv_bn(const In &in, const Halide::Runtime::Buffer<const float> &weights,
             strata::harness::ReferenceArguments &args, const std::string &bn, Tensor &out) {
    auto mean = args.input<float>(bn + "_mean");
    auto variance = args.input<float>(bn + "_variance");
    auto gamma = args.input<float>(bn + "_gamma");
    auto beta = args.input<float>(bn + "_beta");
    const int width = in.dim(0).extent(), height = in.dim(1).extent(), channels = in.dim(2).extent();
    out.for_each_element([&](int x, int y, int co, int n) {
        double sum = 0;
        for (int ci = 0; ci < channels; ++ci) {
            for (int ry = 0; ry < 3; ++ry) {
                for (int rx = 0; rx < 3; ++rx) {
                    const int sx = x + rx - 1, sy = y + ry - 1;
                    if (sx < 0 || sx >= width || sy < 0 || sy >= height) continue;
                    sum += double(in(sx, sy, ci, n)) * double(weights(rx, ry, ci, co));
                }
            }
        }
        out(x, y, co, n) = (sum - mean(co)) / std::sqrt(double(variance(co)) + 1e-5) * gamma(co) + beta(co);
    });
}

void resnet_block_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int w = input.dim(0).extent(), h = input.dim(1).extent(), c = input.dim(2).extent();
    const int n = input.dim(3).extent();
    Tensor mid(w, h, c, n), second(w, h, c, n);
    conv_bn(input, args.input<float>("conv1_weights"), args, "bn1", mid);
    mid.for_each_value([](double &v) { v = std::max(v, 0.0); });
    conv_bn(mid, args.input<float>("conv2_weights"), args, "bn2", second);
    output.for_each_element([&](int x, int y, int ch, int b) {
        output(x, y, ch, b) = float(std::max(second(x, y, ch, b) + input(x, y, ch, b), 0.0));
    });
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // Batch 2, the real 64 channels (Li2018 tiles channels by 64), 70 × 10
    // pixels (3 x-tiles of the manual schedule, the last shifted; 3 y-tiles),
    // 576-term sums.
    strata::harness::AppCheckSpec spec;
    const int w = 70, h = 10, c = 64, n = 2;
    spec.input_extents["input"] = {w, h, c, n};
    spec.output_extents["output"] = {w, h, c, n};
    for (const char *weights : {"conv1_weights", "conv2_weights"}) {
        spec.input_extents[weights] = {3, 3, c, c};
        spec.input_ranges[weights] = {-0.15, 0.15};
    }
    for (const std::string bn : {"bn1", "bn2"}) {
        for (const char *param : {"_mean", "_variance", "_gamma", "_beta"}) spec.input_extents[bn + param] = {c};
        spec.input_ranges[bn + "_mean"] = {-0.5, 0.5};
        spec.input_ranges[bn + "_variance"] = {0.5, 1.5};
        spec.input_ranges[bn + "_gamma"] = {0.5, 1.5};
        spec.input_ranges[bn + "_beta"] = {-0.5, 0.5};
    }
    // Two chained float32 sums of 576 terms of magnitude ≲ 0.15: absolute
    // error ~1e-5 at worst per layer; outputs are O(1).
    spec.tolerance = {1e-4, 1e-4};
    spec.reference = resnet_block_reference;
    return spec;
}
