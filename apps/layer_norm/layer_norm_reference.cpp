// layer_norm, in plain C++: per token, the mean and the biased variance in
// double, then the normalized, scaled and shifted features.
#include "strata/harness/AppCheckSpec.h"

#include <cmath>

namespace {

void layer_norm_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto gamma = args.input<float>("gamma");
    auto beta = args.input<float>("beta");
    auto output = args.output<float>("output");
    const int hidden = input.dim(0).extent();
    const double epsilon = 1e-5;  // the generator's default
    for (int t = 0; t < output.dim(1).extent(); ++t) {
        double mean = 0;
        for (int f = 0; f < hidden; ++f) mean += input(f, t);
        mean /= hidden;
        double var = 0;
        for (int f = 0; f < hidden; ++f) var += (input(f, t) - mean) * (input(f, t) - mean);
        var /= hidden;
        const double inv_std = 1.0 / std::sqrt(var + epsilon);
        for (int f = 0; f < hidden; ++f) output(f, t) = float((input(f, t) - mean) * inv_std * gamma(f) + beta(f));
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // 300 features (not a multiple of the 32 lanes: guarded reductions) ×
    // 100 tokens (13 blocks of 8, the last one shifted inwards).
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {300, 100};
    spec.input_extents["gamma"] = {300};
    spec.input_extents["beta"] = {300};
    spec.output_extents["output"] = {300, 100};
    // Activations with a mean well away from zero; signed shifts.
    spec.input_ranges["input"] = {-2.0, 6.0};
    spec.input_ranges["gamma"] = {0.5, 1.5};
    spec.input_ranges["beta"] = {-1.0, 1.0};
    // Outputs are O(1); float32 centering rounds at ~|x| 2^-24 / std, so an
    // absolute term covers outputs that land near zero.
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = layer_norm_reference;
    return spec;
}
