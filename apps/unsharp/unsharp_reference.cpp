// unsharp, in plain C++: the same arithmetic as unsharp_generator.cpp, one
// output pixel at a time, with the image edge repeated.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

std::vector<float> gaussian_taps(float sigma) {
    const int radius = int(std::ceil(3 * sigma));
    std::vector<double> w;
    double total = 0;
    for (int i = -radius; i <= radius; ++i) {
        w.push_back(std::exp(-double(i * i) / (2.0 * sigma * sigma)));
        total += w.back();
    }
    std::vector<float> taps;
    for (double v : w) taps.push_back(float(v / total));
    return taps;
}

void unsharp_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto in = [&](int x, int y, int c) {
        return input(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), c);
    };
    auto gray = [&](int x, int y) { return 0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2); };
    const std::vector<float> taps = gaussian_taps(1.5f);
    const int radius = int(taps.size() / 2);

    for (int y = 0; y < output.dim(1).extent(); ++y) {
        for (int x = 0; x < output.dim(0).extent(); ++x) {
            float blurred = 0;
            for (int j = -radius; j <= radius; ++j) {
                float row = 0;
                for (int i = -radius; i <= radius; ++i) row += taps[i + radius] * gray(x + i, y + j);
                blurred += taps[j + radius] * row;
            }
            const float ratio = (2 * gray(x, y) - blurred) / gray(x, y);
            for (int c = 0; c < 3; ++c) output(x, y, c) = in(x, y, c) * ratio;
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = unsharp_reference;
    return spec;
}
