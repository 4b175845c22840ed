// hist, in plain C++: fixed-point luma, its 256-bin histogram and cdf, the
// equalized luma, and the JFIF inverse transform with the original chroma.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

void hist_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<uint8_t>("input");
    auto output = args.output<uint8_t>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto luma = [&](int x, int y) { return (77 * input(x, y, 0) + 150 * input(x, y, 1) + 29 * input(x, y, 2) + 128) >> 8; };

    std::vector<long> cdf(256, 0);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) ++cdf[luma(x, y)];
    for (int b = 1; b < 256; ++b) cdf[b] += cdf[b - 1];
    const float scale = 255.0f / float(width * height);

    for (int y = 0; y < output.dim(1).extent(); ++y) {
        for (int x = 0; x < output.dim(0).extent(); ++x) {
            const float r = input(x, y, 0), g = input(x, y, 1), b = input(x, y, 2);
            const float cb = 128.0f - 0.168736f * r - 0.331264f * g + 0.5f * b;
            const float cr = 128.0f + 0.5f * r - 0.418688f * g - 0.081312f * b;
            const float yv = float(cdf[luma(x, y)]) * scale;
            const float rgb[3] = {yv + 1.402f * (cr - 128), yv - 0.344136f * (cb - 128) - 0.714136f * (cr - 128),
                                  yv + 1.772f * (cb - 128)};
            for (int c = 0; c < 3; ++c) output(x, y, c) = uint8_t(std::clamp(std::nearbyint(rgb[c]), 0.0f, 255.0f));
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    // The histogram spans the input's own extent.
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    // The histogram and cdf are exact; only a float rounding tie of the last
    // step may land one level apart.
    spec.tolerance = {0, 1};
    spec.reference = hist_reference;
    return spec;
}
