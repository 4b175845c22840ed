#include "strata/dsl/image/Gradient.h"

#include "strata/dsl/image/Convolution.h"

namespace strata::dsl::image {

Halide::Func sobel_x(const Halide::Func &input, const std::string &name) {
    return convolve3x3(input, {-1 / 8.f, 0, 1 / 8.f, -2 / 8.f, 0, 2 / 8.f, -1 / 8.f, 0, 1 / 8.f}, name);
}

Halide::Func sobel_y(const Halide::Func &input, const std::string &name) {
    return convolve3x3(input, {-1 / 8.f, -2 / 8.f, -1 / 8.f, 0, 0, 0, 1 / 8.f, 2 / 8.f, 1 / 8.f}, name);
}

}  // namespace strata::dsl::image
