#include "strata/dsl/image/Blur.h"

#include "strata/dsl/Require.h"
#include "strata/dsl/image/Convolution.h"

#include <cmath>

namespace strata::dsl::image {

std::vector<float> gaussian_taps(float sigma) {
    require(sigma > 0, "gaussian_taps: sigma must be positive, got " + std::to_string(sigma));
    const int radius = int(std::ceil(3 * sigma));
    std::vector<float> taps(2 * radius + 1);
    double total = 0;
    for (int i = -radius; i <= radius; ++i) total += std::exp(-double(i * i) / (2.0 * sigma * sigma));
    for (int i = -radius; i <= radius; ++i) {
        taps[i + radius] = float(std::exp(-double(i * i) / (2.0 * sigma * sigma)) / total);
    }
    return taps;
}

Halide::Func gaussian_blur(const Halide::Func &input, float sigma, const std::string &name) {
    const std::vector<float> taps = gaussian_taps(sigma);
    return convolve_separable(input, taps, taps, name);
}

Halide::Func box_blur(const Halide::Func &input, int radius, const std::string &name) {
    require(radius >= 0, "box_blur '" + name + "': radius must be non-negative, got " + std::to_string(radius));
    const std::vector<float> taps(2 * radius + 1, 1.0f / float(2 * radius + 1));
    return convolve_separable(input, taps, taps, name);
}

}  // namespace strata::dsl::image
