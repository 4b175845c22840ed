// attention, in plain C++: for each head, batch and query, the scaled dot
// products with the visible keys (j <= i: the generator's default causal
// mask), their softmax and the weighted sum of values, in double.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

void attention_reference(strata::harness::ReferenceArguments &args) {
    auto q = args.input<float>("q");
    auto k = args.input<float>("k");
    auto v = args.input<float>("v");
    auto output = args.output<float>("output");
    const int dims = q.dim(0).extent(), seq = output.dim(1).extent();
    const double scale = 1.0 / std::sqrt(double(dims));
    std::vector<double> weights(seq);
    for (int b = 0; b < output.dim(3).extent(); ++b) {
        for (int h = 0; h < output.dim(2).extent(); ++h) {
            for (int i = 0; i < seq; ++i) {
                const int visible = i + 1;
                double m = -INFINITY, total = 0;
                for (int j = 0; j < visible; ++j) {
                    double s = 0;
                    for (int x = 0; x < dims; ++x) s += double(q(x, i, h, b)) * k(x, j, h, b);
                    weights[j] = s * scale;
                    m = std::max(m, weights[j]);
                }
                for (int j = 0; j < visible; ++j) total += (weights[j] = std::exp(weights[j] - m));
                for (int x = 0; x < output.dim(0).extent(); ++x) {
                    double sum = 0;
                    for (int j = 0; j < visible; ++j) sum += weights[j] * v(x, j, h, b);
                    output(x, i, h, b) = float(sum / total);
                }
            }
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // Head dim 64 (the real one), seq 96 (a full and a shifted 64-tile of
    // queries and keys; 12 rows of 8 for the softmax), 2 heads, batch 2.
    strata::harness::AppCheckSpec spec;
    for (const char *name : {"q", "k", "v"}) spec.input_extents[name] = {64, 96, 2, 2};
    spec.output_extents["output"] = {64, 96, 2, 2};
    // Logits of a few units, so the softmax is neither flat nor one-hot.
    spec.input_ranges["q"] = {-1.0, 1.0};
    spec.input_ranges["k"] = {-1.0, 1.0};
    // Outputs are convex combinations of values in [0.05, 1]: float32 error
    // of the 64- and 96-term sums stays near 1e-6.
    spec.tolerance = {1e-4, 1e-6};
    spec.reference = attention_reference;
    return spec;
}
