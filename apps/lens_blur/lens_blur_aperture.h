// lens_blur_aperture: the fixed sample pattern over the lens aperture that
// lens_blur's generator and reference share — points spread evenly over the
// unit disk along a golden-angle (Vogel) spiral, in Q8 fixed point so that
// both sides scale them to pixel offsets with the same integer arithmetic.
//
// Example:
//   for (const lens_blur::ApertureTap &tap : lens_blur::aperture_taps(32)) use(tap.u, tap.v);
#pragma once

#include <cmath>
#include <vector>

namespace lens_blur {

constexpr int kApertureScale = 256;  // Q8: the unit disk's radius

struct ApertureTap {
    int u, v;  // in [-kApertureScale, kApertureScale]
};

// Tap s sits at radius sqrt((s + 1/2) / count) and angle s times the golden
// angle, which covers the disk with nearly equal area per tap.
inline std::vector<ApertureTap> aperture_taps(int count) {
    const double golden_angle = M_PI * (3.0 - std::sqrt(5.0));
    std::vector<ApertureTap> taps;
    for (int s = 0; s < count; ++s) {
        const double radius = std::sqrt((s + 0.5) / count), angle = s * golden_angle;
        taps.push_back({int(std::lround(kApertureScale * radius * std::cos(angle))),
                        int(std::lround(kApertureScale * radius * std::sin(angle)))});
    }
    return taps;
}

}  // namespace lens_blur
