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

Func convolve(const Func &input, const Func &kernel, const Expr &kernel_width, const Expr &kernel_height,
              const std::string &name) {
    const std::string op = "convolve '" + name + "'";
    require_dimensions(input, 2, op);
    require(kernel.defined() && kernel.dimensions() == 2,
            op + ": the kernel Func '" + kernel.name() + "' must be defined with 2 dimensions (i, j)");
    for (const Expr &extent : {kernel_width, kernel_height}) {
        require(extent.defined() && (extent.type().is_int() || extent.type().is_uint()),
                op + ": the kernel extents must be defined integer Exprs");
    }
    Halide::RDom r(0, kernel_width, 0, kernel_height, name + "_taps");
    auto v = pure_vars(input, name);
    std::vector<Expr> at = as_exprs(v);
    at[0] = v[0] + r.x - kernel_width / 2;
    at[1] = v[1] + r.y - kernel_height / 2;
    Func out(name);
    out(v) = 0.0f;
    out(v) += Halide::cast<float>(kernel(r.x, r.y)) * Halide::cast<float>(input(at));
    return out;
}

Func box_sum(const Func &input, int dim, const Expr &size, const std::string &name) {
    const std::string op = "box_sum '" + name + "'";
    require(dim >= 0, op + ": the dimension must be non-negative, got " + std::to_string(dim));
    require_dimensions(input, dim + 1, op);
    require(size.defined() && (size.type().is_int() || size.type().is_uint()),
            op + ": the window size must be a defined integer Expr");
    Halide::RDom r(-(size / 2), size, name + "_window");
    auto v = pure_vars(input, name);
    std::vector<Expr> at = as_exprs(v);
    at[dim] = v[dim] + r;
    const Halide::Type type = Expr(input(v)).type();
    // Sums of narrow integers widen so that a window of them cannot overflow.
    const Halide::Type sum_type =
        type.is_float() || type.bits() >= 32 ? type : (type.is_uint() ? Halide::UInt(32) : Halide::Int(32));
    Func out(name);
    out(v) = Halide::cast(sum_type, 0);
    out(v) += Halide::cast(sum_type, input(at));
    return out;
}

}  // namespace strata::dsl::image
