#include "strata/dsl/image/Color.h"

#include "strata/dsl/FuncShape.h"

namespace strata::dsl::image {

Halide::Func luminance(const Halide::Func &rgb, const std::string &name) {
    require_dimensions(rgb, 3, "luminance");
    Halide::Var x(name + "_x"), y(name + "_y");
    auto channel = [&](int c) { return Halide::cast<float>(rgb(x, y, c)); };
    Halide::Func gray(name);
    gray(x, y) = 0.299f * channel(0) + 0.587f * channel(1) + 0.114f * channel(2);
    return gray;
}

}  // namespace strata::dsl::image
