#include "strata/dsl/image/Resize.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"


namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;

namespace {

enum class Kernel { Bilinear, Bicubic };

// Keys' cubic convolution weight at distance t (a = -0.5).
Expr keys_weight(const Expr &t_in) {
    const Expr t = Halide::abs(t_in);
    const float a = -0.5f;
    const Expr near = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
    const Expr far = ((a * t - 5.0f * a) * t + 8.0f * a) * t - 4.0f * a;
    return Halide::select(t <= 1.0f, near, Halide::select(t < 2.0f, far, 0.0f));
}

void check_size(const Expr &extent, const std::string &what, const std::string &op, const std::string &name) {
    require(extent.defined(), op + " '" + name + "': the " + what + " is undefined");
    if (const auto e = Halide::Internal::as_const_int(extent)) {
        require(*e >= 1, op + " '" + name + "': the " + what + " must be positive, got " + std::to_string(*e));
    }
}

// Resamples dimension `dim` (0 or 1) of `input` from in_extent to out_extent samples.
Func resample(const Func &input, int dim, const Expr &in_extent, const Expr &out_extent, Kernel kernel,
              const std::string &name) {
    auto v = pure_vars(input, name);
    const Expr scale = Halide::cast<float>(in_extent) / Halide::cast<float>(out_extent);
    const Expr source = (Halide::cast<float>(v[dim]) + 0.5f) * scale - 0.5f;
    const Expr base = Halide::cast<int>(Halide::floor(source));
    const Expr frac = source - Halide::cast<float>(base);
    auto tap = [&](int offset) {
        return Halide::cast<float>(replaced(input, v, dim, Halide::clamp(base + offset, 0, in_extent - 1)));
    };
    Func out(name);
    if (kernel == Kernel::Bilinear) {
        out(v) = tap(0) * (1.0f - frac) + tap(1) * frac;
    } else {
        out(v) = tap(-1) * keys_weight(frac + 1.0f) + tap(0) * keys_weight(frac) + tap(1) * keys_weight(1.0f - frac) +
                 tap(2) * keys_weight(2.0f - frac);
    }
    return out;
}

Func resize(const Func &input, const Expr &in_width, const Expr &in_height, const Expr &out_width,
            const Expr &out_height, Kernel kernel, const std::string &op, const std::string &name) {
    require_dimensions(input, 2, op);
    require(input.outputs() == 1, op + " '" + name + "': Func '" + input.name() + "' has " +
                                      std::to_string(input.outputs()) + " outputs; one is needed");
    check_size(in_width, "input width", op, name);
    check_size(in_height, "input height", op, name);
    check_size(out_width, "output width", op, name);
    check_size(out_height, "output height", op, name);
    Func along_x = resample(input, 0, in_width, out_width, kernel, name + "_x");
    return resample(along_x, 1, in_height, out_height, kernel, name);
}

}  // namespace

Func resize_bilinear(const Func &input, const Expr &in_width, const Expr &in_height, const Expr &out_width,
                     const Expr &out_height, const std::string &name) {
    return resize(input, in_width, in_height, out_width, out_height, Kernel::Bilinear, "resize_bilinear", name);
}

Func resize_bicubic(const Func &input, const Expr &in_width, const Expr &in_height, const Expr &out_width,
                    const Expr &out_height, const std::string &name) {
    return resize(input, in_width, in_height, out_width, out_height, Kernel::Bicubic, "resize_bicubic", name);
}

}  // namespace strata::dsl::image
