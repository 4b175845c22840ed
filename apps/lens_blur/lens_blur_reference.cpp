// lens_blur, in plain C++: the depth of every pixel the blur reads (the
// output plus the reach of the aperture and of the worst-radius window),
// then the worst radius and the aperture sampling, as in
// lens_blur_generator.cpp.
#include "lens_blur_aperture.h"
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

namespace {

constexpr int kSlices = 32;
constexpr int kSamples = 32;
constexpr int kAggregationRadius = 4;  // a 9×9 box
constexpr int kMaxRadius = 8;

void lens_blur_reference(strata::harness::ReferenceArguments &args) {
    auto left = args.input<uint8_t>("left");
    auto right = args.input<uint8_t>("right");
    auto output = args.output<float>("output");
    const int focus = args.scalar<int>("focus_depth");
    const float scale = args.scalar<float>("blur_radius_scale");
    const int width = output.dim(0).extent(), height = output.dim(1).extent();
    auto clamped = [](const auto &image, int x, int y, int c) {
        return int(image(std::clamp(x, 0, image.dim(0).extent() - 1), std::clamp(y, 0, image.dim(1).extent() - 1), c));
    };

    // Depth over the output plus 2 × kMaxRadius: the worst-radius window and
    // then the aperture each reach kMaxRadius further.
    const int margin = 2 * kMaxRadius, dw = width + 2 * margin, dh = height + 2 * margin;
    std::vector<int> depth(size_t(dw) * dh, 0), best(size_t(dw) * dh, std::numeric_limits<int>::max());
    const int cm = margin + kAggregationRadius, cw = width + 2 * cm, ch = height + 2 * cm;
    std::vector<int> cost(size_t(cw) * ch), rows(size_t(dw) * ch);
    for (int z = 0; z < kSlices; ++z) {
        for (int y = -cm; y < height + cm; ++y) {
            for (int x = -cm; x < width + cm; ++x) {
                int sum = 0;
                for (int c = 0; c < 3; ++c) {
                    const int here = clamped(left, x, y, c);
                    const int d = std::min(std::abs(here - clamped(right, x + 2 * z, y, c)),
                                           std::abs(here - clamped(right, x + 2 * z + 1, y, c)));
                    sum += d * d;
                }
                cost[size_t(y + cm) * cw + (x + cm)] = sum;
            }
        }
        for (int y = -cm; y < height + cm; ++y) {
            for (int x = -margin; x < width + margin; ++x) {
                int sum = 0;
                for (int i = -kAggregationRadius; i <= kAggregationRadius; ++i)
                    sum += cost[size_t(y + cm) * cw + (x + i + cm)];
                rows[size_t(y + cm) * dw + (x + margin)] = sum;
            }
        }
        for (int y = -margin; y < height + margin; ++y) {
            for (int x = -margin; x < width + margin; ++x) {
                int sum = 0;
                for (int j = -kAggregationRadius; j <= kAggregationRadius; ++j)
                    sum += rows[size_t(y + j + cm) * dw + (x + margin)];
                const size_t at = size_t(y + margin) * dw + (x + margin);
                if (sum < best[at]) {
                    best[at] = sum;
                    depth[at] = z;
                }
            }
        }
    }
    auto depth_at = [&](int x, int y) { return depth[size_t(y + margin) * dw + (x + margin)]; };
    auto radius = [&](int x, int y) {
        return std::min(float(std::abs(depth_at(x, y) - focus)) * scale, float(kMaxRadius));
    };

    const std::vector<lens_blur::ApertureTap> taps = lens_blur::aperture_taps(kSamples);
    auto floor_div = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float worst = 0;
            for (int j = -kMaxRadius; j <= kMaxRadius; ++j)
                for (int i = -kMaxRadius; i <= kMaxRadius; ++i) worst = std::max(worst, radius(x + i, y + j));
            const int half_pixels = std::clamp(int(worst * 2.0f), 0, 2 * kMaxRadius);
            float sum[4];
            for (int c = 0; c < 3; ++c) sum[c] = float(clamped(left, x, y, c));
            sum[3] = 1.0f;
            for (const lens_blur::ApertureTap &tap : taps) {
                const int du = floor_div(tap.u * half_pixels, 2 * lens_blur::kApertureScale);
                const int dv = floor_div(tap.v * half_pixels, 2 * lens_blur::kApertureScale);
                const int sx = x + du, sy = y + dv;
                const float distance2 = float(du * du + dv * dv);
                const bool covers_this_pixel = distance2 < radius(sx, sy) * radius(sx, sy);
                const bool within_own_disk = distance2 < radius(x, y) * radius(x, y);
                const bool nearer = depth_at(sx, sy) > depth_at(x, y);
                if (!(covers_this_pixel && (within_own_disk || nearer))) continue;
                for (int c = 0; c < 3; ++c) sum[c] += float(clamped(left, sx, sy, c));
                sum[3] += 1.0f;
            }
            for (int c = 0; c < 3; ++c) output(x, y, c) = sum[c] / sum[3];
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["left"] = {256, 160, 3};
    spec.input_extents["right"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    spec.input_ranges["left"] = {0, 255};
    spec.input_ranges["right"] = {0, 255};
    // Integer costs and 0/1 weights make everything exact but the final division.
    spec.tolerance = {1e-5, 1e-4};
    spec.reference = lens_blur_reference;
    return spec;
}
