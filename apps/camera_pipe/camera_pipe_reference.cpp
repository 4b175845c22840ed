// camera_pipe, in plain C++: the stages of camera_pipe_generator.cpp one
// full-resolution pixel at a time, with the demosaicking written as the 5×5
// filters printed in Malvar, He and Cutler (2004) (reference/MalvarDemosaic.h,
// shared with the dsl's demosaic test).
#include "reference/MalvarDemosaic.h"
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int kMarginX = 16, kMarginY = 12;
constexpr int kCurveSize = 1024;

// A float plane over [x0, x0 + width) × [y0, y0 + height).
struct Plane {
    int x0, y0, width, height;
    std::vector<float> values;
    Plane(int x0_, int y0_, int width_, int height_)
        : x0(x0_), y0(y0_), width(width_), height(height_), values(size_t(width_) * height_) {
    }
    float &operator()(int x, int y) { return values[size_t(y - y0) * width + (x - x0)]; }
    float operator()(int x, int y) const { return values[size_t(y - y0) * width + (x - x0)]; }
};

enum { kRed = 0, kGreen = 1, kBlue = 2 };

// GRBG: green at (even, even) and (odd, odd), red at (odd, even), blue at (even, odd).
int color_at(int x, int y) {
    const bool odd_x = (x & 1) != 0, odd_y = (y & 1) != 0;
    if (odd_x == odd_y) return kGreen;
    return odd_x ? kRed : kBlue;
}

void camera_pipe_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<uint16_t>("input");
    auto matrix = args.input<float>("matrix");
    auto output = args.output<uint8_t>("output");
    const float gamma = args.scalar<float>("gamma"), contrast = args.scalar<float>("contrast");
    const float black = float(args.scalar<int>("black_level")), white = float(args.scalar<int>("white_level"));
    const float strength = args.scalar<float>("sharpen_strength");
    const int width = output.dim(0).extent(), height = output.dim(1).extent();

    auto raw = [&](int x, int y) { return int(input(x + kMarginX, y + kMarginY)); };
    Plane denoised(-3, -3, width + 6, height + 6);
    for (int y = -3; y < height + 3; ++y) {
        for (int x = -3; x < width + 3; ++x) {
            const int neighbors[4] = {raw(x - 2, y), raw(x + 2, y), raw(x, y - 2), raw(x, y + 2)};
            const int lo = *std::min_element(neighbors, neighbors + 4);
            const int hi = *std::max_element(neighbors, neighbors + 4);
            denoised(x, y) = float(std::clamp(raw(x, y), lo, hi));
        }
    }

    std::vector<float> curve(kCurveSize);
    for (int i = 0; i < kCurveSize; ++i) {
        const float t = std::clamp((float(i) - black) / std::max(white - black, 1e-6f), 0.0f, 1.0f);
        const float g = std::pow(t, 1.0f / gamma);
        curve[i] = g + contrast * (g * g * (3 - 2 * g) - g);
    }
    auto look_up = [&](float v) {
        const float position = std::clamp(v, 0.0f, float(kCurveSize - 1));
        const int index = std::min(int(position), kCurveSize - 2);
        const float fraction = position - float(index);
        return curve[index] + (curve[index + 1] - curve[index]) * fraction;
    };

    // Demosaic, correct and tone-map, with a one-pixel halo for sharpening.
    std::vector<Plane> curved(3, Plane(-1, -1, width + 2, height + 2));
    for (int y = -1; y < height + 1; ++y) {
        for (int x = -1; x < width + 1; ++x) {
            float rgb[3];
            for (int c = 0; c < 3; ++c) rgb[c] = strata::testing::malvar_demosaic_at(denoised, color_at, x, y, c);
            for (int c = 0; c < 3; ++c) {
                float corrected = matrix(3, c);
                for (int k = 0; k < 3; ++k) corrected += matrix(k, c) * rgb[k];
                curved[c](x, y) = look_up(corrected);
            }
        }
    }

    const float taps[3] = {0.25f, 0.5f, 0.25f};
    for (int c = 0; c < 3; ++c) {
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                float blurred = 0;
                for (int j = -1; j <= 1; ++j) {
                    float row = 0;
                    for (int i = -1; i <= 1; ++i) row += taps[i + 1] * curved[c](x + i, y + j);
                    blurred += taps[j + 1] * row;
                }
                const float here = curved[c](x, y);
                const float sharpened = here + strength * (here - blurred);
                output(x, y, c) = uint8_t(std::clamp(std::nearbyint(sharpened * 255.0f), 0.0f, 255.0f));
            }
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.output_extents["output"] = {256, 160, 3};
    spec.input_ranges["input"] = {0, 1023};
    // Mostly positive mixing weights, some negative, so that corrected values
    // cover the whole curve and run past both of its ends.
    spec.input_ranges["matrix"] = {-0.1, 0.6};
    // Float rounding differences (GPU pow, fused multiply-adds) may move a
    // value across a rounding boundary of the final uint8 conversion.
    spec.tolerance = {0.0, 1.0};
    spec.reference = camera_pipe_reference;
    return spec;
}
