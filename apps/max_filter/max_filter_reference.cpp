// max_filter, in plain C++: the maximum over the (2 radius + 1)² window of
// each channel, with the edge repeated, as a column pass then a row pass
// (max is separable; each pass is the obvious loop over its window).
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <vector>

namespace {

constexpr int kRadius = 26;  // the generator's default

void max_filter_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    const int out_width = output.dim(0).extent(), out_height = output.dim(1).extent();
    auto clamp_x = [&](int x) { return std::clamp(x, 0, width - 1); };
    auto clamp_y = [&](int y) { return std::clamp(y, 0, height - 1); };

    for (int c = 0; c < output.dim(2).extent(); ++c) {
        // The column maxima, for every column the row pass reads.
        const int columns = out_width + 2 * kRadius;
        std::vector<float> vertical(size_t(columns) * out_height);
        for (int y = 0; y < out_height; ++y) {
            for (int i = 0; i < columns; ++i) {
                const int x = clamp_x(i - kRadius);
                float m = input(x, clamp_y(y), c);
                for (int d = -kRadius; d <= kRadius; ++d) m = std::max(m, input(x, clamp_y(y + d), c));
                vertical[size_t(y) * columns + i] = m;
            }
        }
        for (int y = 0; y < out_height; ++y) {
            for (int x = 0; x < out_width; ++x) {
                float m = vertical[size_t(y) * columns + x + kRadius];
                for (int d = -kRadius; d <= kRadius; ++d) m = std::max(m, vertical[size_t(y) * columns + x + kRadius + d]);
                output(x, y, c) = m;
            }
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    // A max selects one of its inputs: the result must be exact.
    spec.tolerance = {0, 0};
    spec.reference = max_filter_reference;
    return spec;
}
