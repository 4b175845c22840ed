// nl_means, in plain C++: for every pixel and every offset in the search
// window, the patch distance summed directly over the patch, as in
// nl_means_generator.cpp, with the image edge repeated.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>

namespace {

void nl_means_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int patch = args.scalar<int>("patch_size"), search = args.scalar<int>("search_area");
    const float sigma = args.scalar<float>("sigma");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto in = [&](int x, int y, int c) {
        return input(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), c);
    };
    auto diff = [&](int x, int y, int dx, int dy) {
        float sum = 0;
        for (int c = 0; c < 3; ++c) {
            const float d = in(x, y, c) - in(x + dx, y + dy, c);
            sum += d * d;
        }
        return sum;
    };
    const float inverse_scale = -1.0f / (sigma * sigma * float(patch * patch));
    const int p0 = -(patch / 2), s0 = -(search / 2);

    for (int y = 0; y < output.dim(1).extent(); ++y) {
        for (int x = 0; x < output.dim(0).extent(); ++x) {
            float sum[4] = {0, 0, 0, 0};
            for (int dy = s0; dy < s0 + search; ++dy) {
                for (int dx = s0; dx < s0 + search; ++dx) {
                    float distance = 0;
                    for (int i = p0; i < p0 + patch; ++i) {
                        float column = 0;
                        for (int j = p0; j < p0 + patch; ++j) column += diff(x + i, y + j, dx, dy);
                        distance += column;
                    }
                    const float weight = std::exp(distance * inverse_scale);
                    for (int c = 0; c < 3; ++c) sum[c] += weight * in(x + dx, y + dy, c);
                    sum[3] += weight;
                }
            }
            for (int c = 0; c < 3; ++c) output(x, y, c) = std::clamp(sum[c] / sum[3], 0.0f, 1.0f);
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    // Uniform noise is far from self-similar: with the default sigma (0.12)
    // every offset but (0, 0) would weigh ~1e-14 and the check would not see
    // the patch distances. A larger sigma spreads the weights.
    spec.scalars["sigma"] = 0.6;
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = nl_means_reference;
    return spec;
}
