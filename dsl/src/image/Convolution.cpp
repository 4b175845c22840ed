#include "strata/dsl/image/Convolution.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;

Func convolve3x3(const Func &input, const std::array<float, 9> &weights, const std::string &name) {
    require_dimensions(input, 2, "convolve3x3");
    Func out(name);
    auto v = pure_vars(input, name);
    Expr sum;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const float w = weights[(dy + 1) * 3 + (dx + 1)];
            if (w == 0.0f) continue;
            Expr term = w * Halide::cast<float>(shifted(input, v, {dx, dy}));
            sum = sum.defined() ? sum + term : term;
        }
    }
    out(v) = sum.defined() ? sum : Expr(0.0f);
    return out;
}

Func convolve_1d(const Func &input, int dim, const std::vector<float> &taps, const std::string &name) {
    require_dimensions(input, dim + 1, "convolve_1d");
    require(taps.size() % 2 == 1,
            "convolve_1d '" + name + "': needs an odd number of taps, got " + std::to_string(taps.size()));
    const int radius = int(taps.size() / 2);
    Func out(name);
    auto v = pure_vars(input, name);
    Expr sum;
    for (int i = -radius; i <= radius; ++i) {
        const float w = taps[i + radius];
        if (w == 0.0f) continue;
        std::vector<int> offsets(dim + 1, 0);
        offsets[dim] = i;
        Expr term = w * Halide::cast<float>(shifted(input, v, offsets));
        sum = sum.defined() ? sum + term : term;
    }
    out(v) = sum.defined() ? sum : Expr(0.0f);
    return out;
}

Func convolve_separable(const Func &input, const std::vector<float> &taps_x, const std::vector<float> &taps_y,
                        const std::string &name) {
    return convolve_1d(convolve_1d(input, 0, taps_x, name + "_x"), 1, taps_y, name);
}

}  // namespace strata::dsl::image
