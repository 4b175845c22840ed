// interpolate, in plain C++: the pyramid of interpolate_generator.cpp level
// by level, each level computed over its nominal extent plus a margin wide
// enough for what the finer levels read of it.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kLevels = 10;
constexpr int kClampedLevel = 4;
constexpr int kChannels = 4;

// A float RGBA plane over [x0, x1) × [y0, y1), with checked access so that a
// margin too small for the reads fails loudly instead of reading garbage.
class Plane {
public:
    Plane(int x0, int x1, int y0, int y1)
        : x0_(x0), x1_(x1), y0_(y0), y1_(y1), values_(size_t(x1 - x0) * (y1 - y0) * kChannels) {}
    int x0() const { return x0_; }
    int x1() const { return x1_; }
    int y0() const { return y0_; }
    int y1() const { return y1_; }
    float &at(int x, int y, int c) {
        if (x < x0_ || x >= x1_ || y < y0_ || y >= y1_) {
            throw std::out_of_range("interpolate reference: (" + std::to_string(x) + ", " + std::to_string(y) +
                                    ") is outside the computed plane");
        }
        return values_[(size_t(y - y0_) * (x1_ - x0_) + (x - x0_)) * kChannels + c];
    }

private:
    int x0_, x1_, y0_, y1_;
    std::vector<float> values_;
};

void interpolate_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    auto nominal = [](int extent, int l) { return (extent + (1 << l) - 1) >> l; };

    auto premultiplied = [&](int x, int y, int c) {
        x = std::clamp(x, 0, width - 1);
        y = std::clamp(y, 0, height - 1);
        const float alpha = input(x, y, 3);
        return c < 3 ? input(x, y, c) * alpha : alpha;
    };

    // Margins: every level is read up to 2 samples beyond its extent when it
    // is upsampled, and each level must cover what the next coarser level's
    // [1 2 1] filter reads of it — except the clamped level, which the next
    // level reads only inside its extent.
    std::vector<int> margin(kLevels, 2);
    for (int l = kLevels - 2; l >= 1; --l) {
        if (l != kClampedLevel) margin[l] = std::max(2, 2 * margin[l + 1] + 1);
    }

    std::vector<Plane> down;
    down.emplace_back(0, 0, 0, 0);  // level 0 is evaluated from the input directly
    for (int l = 1; l < kLevels; ++l) {
        const int w = nominal(width, l), h = nominal(height, l), m = margin[l];
        Plane plane(-m, w + m, -m, h + m);
        auto finer = [&](int x, int y, int c) {
            if (l == 1) return premultiplied(x, y, c);
            if (l == kClampedLevel + 1) {
                x = std::clamp(x, 0, nominal(width, kClampedLevel) - 1);
                y = std::clamp(y, 0, nominal(height, kClampedLevel) - 1);
            }
            return down[l - 1].at(x, y, c);
        };
        for (int y = plane.y0(); y < plane.y1(); ++y) {
            for (int x = plane.x0(); x < plane.x1(); ++x) {
                for (int c = 0; c < kChannels; ++c) {
                    float sum = 0;
                    const float weights[3] = {0.25f, 0.5f, 0.25f};
                    for (int j = -1; j <= 1; ++j) {
                        float row = 0;
                        for (int i = -1; i <= 1; ++i) row += weights[i + 1] * finer(2 * x + i, 2 * y + j, c);
                        sum += weights[j + 1] * row;
                    }
                    plane.at(x, y, c) = sum;
                }
            }
        }
        down.push_back(std::move(plane));
    }

    // From the coarsest level up: fill each level's missing weight with the
    // linearly interpolated coarser result.
    Plane coarser = down[kLevels - 1];
    for (int l = kLevels - 2; l >= 0; --l) {
        const int w = nominal(width, l), h = nominal(height, l), m = l == 0 ? 0 : 2;
        Plane here(-m, w + m, -m, h + m);
        auto upsampled = [&](int x, int y, int c) {
            auto row = [&](int cy) {
                const int cx = x >> 1;  // floor division
                return (x & 1) ? 0.5f * coarser.at(cx, cy, c) + 0.5f * coarser.at(cx + 1, cy, c)
                               : coarser.at(cx, cy, c);
            };
            const int cy = y >> 1;
            return (y & 1) ? 0.5f * row(cy) + 0.5f * row(cy + 1) : row(cy);
        };
        for (int y = here.y0(); y < here.y1(); ++y) {
            for (int x = here.x0(); x < here.x1(); ++x) {
                for (int c = 0; c < kChannels; ++c) {
                    const float value = l == 0 ? premultiplied(x, y, c) : down[l].at(x, y, c);
                    const float alpha = l == 0 ? premultiplied(x, y, 3) : down[l].at(x, y, 3);
                    here.at(x, y, c) = value + (1.0f - alpha) * upsampled(x, y, c);
                }
            }
        }
        coarser = std::move(here);
    }

    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) output(x, y, c) = coarser.at(x, y, c) / coarser.at(x, y, 3);
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    // 768×512 keeps the coarsest of the 10 levels at least one pixel (1.5×1).
    spec.input_extents["input"] = {768, 512, 4};
    spec.output_extents["output"] = {768, 512, 3};
    // Alpha anywhere in [0, 1], so that every level fills in some weight.
    spec.input_ranges["input"] = {0.0, 1.0};
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = interpolate_reference;
    return spec;
}
