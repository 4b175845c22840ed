// iir_blur, in plain C++: the two recursions down every column, then the two
// along every row of that result, each starting from its edge sample.
#include "strata/harness/AppCheckSpec.h"

#include <vector>

namespace {

// The causal then anti-causal first-order recursion over `n` samples spaced `stride` apart, in place.
void symmetric_iir(float *line, int n, long stride, float alpha) {
    for (int i = 1; i < n; ++i) line[i * stride] = (1 - alpha) * line[(i - 1) * stride] + alpha * line[i * stride];
    for (int i = n - 2; i >= 0; --i) line[i * stride] = (1 - alpha) * line[(i + 1) * stride] + alpha * line[i * stride];
}

void iir_blur_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const float alpha = args.scalar<float>("alpha");
    const int width = input.dim(0).extent(), height = input.dim(1).extent(), channels = input.dim(2).extent();
    std::vector<float> image(size_t(width) * height);
    for (int c = 0; c < channels; ++c) {
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) image[size_t(y) * width + x] = input(x, y, c);
        for (int x = 0; x < width; ++x) symmetric_iir(&image[x], height, width, alpha);
        for (int y = 0; y < height; ++y) symmetric_iir(&image[size_t(y) * width], width, 1, alpha);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) output(x, y, c) = image[size_t(y) * width + x];
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    spec.scalars["alpha"] = 0.1;
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = iir_blur_reference;
    return spec;
}
