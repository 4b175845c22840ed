// softmax, in plain C++: per row, the max, the sum of exp(x - max) in
// double, and the quotients.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>

namespace {

void softmax_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int features = input.dim(0).extent();
    for (int r = 0; r < output.dim(1).extent(); ++r) {
        double row_max = input(0, r);
        for (int f = 1; f < features; ++f) row_max = std::max(row_max, double(input(f, r)));
        double total = 0;
        for (int f = 0; f < features; ++f) total += std::exp(double(input(f, r)) - row_max);
        for (int f = 0; f < features; ++f) output(f, r) = float(std::exp(double(input(f, r)) - row_max) / total);
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // 300 features (not a multiple of the 32 lanes: guarded reductions) ×
    // 100 rows (13 blocks of 8, the last one shifted inwards).
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {300, 100};
    spec.output_extents["output"] = {300, 100};
    // Logits spread over e^40, so that the max subtraction matters and the
    // smallest probabilities are ~1e-18.
    spec.input_ranges["input"] = {-20.0, 20.0};
    // Each probability is a float32 exp (a few ulp) over a 300-term float32
    // sum (~1e-6 relative): relative error well under 1e-4 at any magnitude.
    spec.tolerance = {1e-4, 1e-30};
    spec.reference = softmax_reference;
    return spec;
}
