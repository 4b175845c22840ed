// BilinearUpsample2x: ×2 bilinear upsampling of one plane as PyTorch defines
// it with align_corners=False — output o reads source coordinate
// (o + 0.5) / 2 - 0.5, clamped at 0, and its far neighbor is clamped to the
// edge — in plain C++. It is the reference of both the dsl's
// upsample_bilinear2x test and the unet app; it does not use the dsl, so it
// stays an independent check of it.
//
// Example:
//   // plane(x, y): the source sample, for x < width and y < height.
//   const double v = strata::testing::bilinear_upsample2x_at(plane, width, height, x, y);
//   // Along x alone: v lies between plane(t.near, .) and plane(t.far, .).
//   const strata::testing::UpsampleTaps t = strata::testing::bilinear_upsample2x_taps(x, width);
#pragma once

#include <algorithm>
#include <cmath>

namespace strata::testing {

// The two source samples output coordinate o interpolates between, along a
// source dimension of the given extent, and the weight of the second.
struct UpsampleTaps {
    int near, far;
    double far_weight;
};

inline UpsampleTaps bilinear_upsample2x_taps(int o, int extent) {
    const double s = std::max((o + 0.5) / 2.0 - 0.5, 0.0);
    const int near = int(std::floor(s));
    return {near, std::min(near + 1, extent - 1), s - near};
}

// Output (x, y) of the upsampled plane, in double.
template <typename Plane>
double bilinear_upsample2x_at(const Plane &plane, int width, int height, int x, int y) {
    const UpsampleTaps tx = bilinear_upsample2x_taps(x, width), ty = bilinear_upsample2x_taps(y, height);
    const double wx = tx.far_weight, wy = ty.far_weight;
    const double top = (1 - wx) * plane(tx.near, ty.near) + wx * plane(tx.far, ty.near);
    const double bottom = (1 - wx) * plane(tx.near, ty.far) + wx * plane(tx.far, ty.far);
    return (1 - wy) * top + wy * bottom;
}

}  // namespace strata::testing
