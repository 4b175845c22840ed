// harris, in plain C++: gradients, products, box sums and the response, one
// output pixel at a time, with the image edge repeated.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>

namespace {

void harris_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto gray = [&](int x, int y) {
        x = std::clamp(x, 0, width - 1);
        y = std::clamp(y, 0, height - 1);
        return 0.299f * input(x, y, 0) + 0.587f * input(x, y, 1) + 0.114f * input(x, y, 2);
    };
    auto ix = [&](int x, int y) {
        return (-gray(x - 1, y - 1) + gray(x + 1, y - 1) - 2 * gray(x - 1, y) + 2 * gray(x + 1, y) -
                gray(x - 1, y + 1) + gray(x + 1, y + 1)) / 8;
    };
    auto iy = [&](int x, int y) {
        return (-gray(x - 1, y - 1) - 2 * gray(x, y - 1) - gray(x + 1, y - 1) + gray(x - 1, y + 1) +
                2 * gray(x, y + 1) + gray(x + 1, y + 1)) / 8;
    };
    for (int y = 0; y < output.dim(1).extent(); ++y) {
        for (int x = 0; x < output.dim(0).extent(); ++x) {
            float sxx = 0, syy = 0, sxy = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const float gx = ix(x + dx, y + dy), gy = iy(x + dx, y + dy);
                    sxx += gx * gx;
                    syy += gy * gy;
                    sxy += gx * gy;
                }
            }
            sxx /= 9;
            syy /= 9;
            sxy /= 9;
            const float det = sxx * syy - sxy * sxy, trace = sxx + syy;
            output(x, y) = det - 0.04f * trace * trace;
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160};
    // The response is a difference of products of small numbers; compare
    // relative to the typical magnitude rather than to each element.
    spec.tolerance = {1e-3, 1e-7};
    spec.reference = harris_reference;
    return spec;
}
