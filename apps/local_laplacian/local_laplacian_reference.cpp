// local_laplacian, in plain C++: every pyramid level of
// local_laplacian_generator.cpp computed over its nominal extent plus the
// margin its consumers read (the margins double at each finer level, as the
// pipeline's footprints do), then collapsed.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kPyramidLevels = 8;
constexpr int kRemapSteps = 256;

// Values over [x0, x1) × [y0, y1) × [0, layers), with checked access so that
// a margin too small for the reads fails loudly.
class Grid {
public:
    Grid() = default;
    Grid(int x0, int x1, int y0, int y1, int layers)
        : x0_(x0), x1_(x1), y0_(y0), y1_(y1), layers_(layers), values_(size_t(x1 - x0) * (y1 - y0) * layers) {}
    int x0() const { return x0_; }
    int x1() const { return x1_; }
    int y0() const { return y0_; }
    int y1() const { return y1_; }
    int layers() const { return layers_; }
    float &at(int x, int y, int k = 0) {
        if (x < x0_ || x >= x1_ || y < y0_ || y >= y1_ || k < 0 || k >= layers_) {
            throw std::out_of_range("local_laplacian reference: (" + std::to_string(x) + ", " + std::to_string(y) +
                                    ", " + std::to_string(k) + ") is outside a computed level");
        }
        return values_[(size_t(k) * (y1_ - y0_) + (y - y0_)) * (x1_ - x0_) + (x - x0_)];
    }

private:
    int x0_ = 0, x1_ = 0, y0_ = 0, y1_ = 0, layers_ = 0;
    std::vector<float> values_;
};

// [1 3 3 1] / 8: coarse sample i is the weighted sum of fine 2i - 1 … 2i + 2.
const float kDown[4] = {0.125f, 0.375f, 0.375f, 0.125f};

// Downsamples `fine` (any accessor) over `coarse`'s region, x first, then y.
template <typename Fine>
void downsample_into(Grid &coarse, Fine fine) {
    Grid rows(coarse.x0(), coarse.x1(), 2 * coarse.y0() - 1, 2 * coarse.y1() + 1, coarse.layers());
    for (int k = 0; k < coarse.layers(); ++k) {
        for (int y = rows.y0(); y < rows.y1(); ++y) {
            for (int x = rows.x0(); x < rows.x1(); ++x) {
                float sum = 0;
                for (int t = 0; t < 4; ++t) sum += kDown[t] * fine(2 * x - 1 + t, y, k);
                rows.at(x, y, k) = sum;
            }
        }
        for (int y = coarse.y0(); y < coarse.y1(); ++y) {
            for (int x = coarse.x0(); x < coarse.x1(); ++x) {
                float sum = 0;
                for (int t = 0; t < 4; ++t) sum += kDown[t] * rows.at(x, 2 * y - 1 + t, k);
                coarse.at(x, y, k) = sum;
            }
        }
    }
}

// Linear interpolation with coarse sample i centered between fine samples
// 2i and 2i + 1: along x, then along y.
template <typename Coarse>
float upsampled(Coarse coarse, int x, int y, int k) {
    auto split = [](int v, int &first, float &w_first, float &w_second) {
        first = (v + 1 >= 0 ? (v + 1) / 2 : -((-(v + 1) + 1) / 2)) - 1;
        const bool odd = (v & 1) != 0;
        w_first = odd ? 0.75f : 0.25f;
        w_second = odd ? 0.25f : 0.75f;
    };
    int cx, cy;
    float wx0, wx1, wy0, wy1;
    split(x, cx, wx0, wx1);
    split(y, cy, wy0, wy1);
    auto row = [&](int yy) { return wx0 * coarse(cx, yy, k) + wx1 * coarse(cx + 1, yy, k); };
    return wy0 * row(cy) + wy1 * row(cy + 1);
}

void local_laplacian_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<uint16_t>("input");
    auto output = args.output<uint16_t>("output");
    const int K = args.scalar<int>("levels");
    const float alpha = args.scalar<float>("alpha"), beta = args.scalar<float>("beta");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    const int J = kPyramidLevels;
    auto nominal = [](int extent, int j) { return (extent + (1 << j) - 1) >> j; };

    // Margins: a_j for the collapse and the blended coefficients; g_j for the
    // processed levels, i_j for the input's levels (each also covering the
    // next coarser level's [1 3 3 1] reads).
    std::vector<int> a(J), g(J), in(J);
    a[0] = 0;
    for (int j = 1; j < J; ++j) a[j] = (a[j - 1] + 1) / 2 + 1;
    g[J - 1] = in[J - 1] = a[J - 1];
    for (int j = J - 2; j >= 0; --j) {
        g[j] = std::max(a[j], 2 * g[j + 1] + 2);
        in[j] = std::max(a[j], 2 * in[j + 1] + 2);
    }

    auto floating = [&](int x, int y, int c) {
        return float(input(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1), c)) * (1.0f / 65535);
    };
    const int gm = std::max(g[0], in[0]);
    Grid gray(-gm, width + gm, -gm, height + gm, 1);
    for (int y = gray.y0(); y < gray.y1(); ++y)
        for (int x = gray.x0(); x < gray.x1(); ++x)
            gray.at(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);

    const int half = (K - 1) * kRemapSteps;
    std::vector<float> remap_table(2 * half + 2);
    for (int i = -half; i <= half + 1; ++i) {
        const float t = float(i) / float(kRemapSteps);
        remap_table[i + half] = alpha * t * std::exp(-t * t / 2.0f);
    }
    auto remap = [&](int i) { return remap_table.at(i + half); };
    const float top = float(K - 1);
    auto remapped = [&](int x, int y, int k) {
        const float v = gray.at(x, y);
        const float level = float(k) / top;
        const float position = std::clamp(v * top * float(kRemapSteps), 0.0f, top * float(kRemapSteps)) -
                               float(k * kRemapSteps);
        const int step = int(std::floor(position));
        const float fraction = position - float(step);
        const float detail = remap(step) + (remap(step + 1) - remap(step)) * fraction;
        return beta * (v - level) + level + detail;
    };

    std::vector<Grid> processed(J), gray_pyramid(J);
    for (int j = 1; j < J; ++j) {
        const int nx = nominal(width, j), ny = nominal(height, j);
        processed[j] = Grid(-g[j], nx + g[j], -g[j], ny + g[j], K);
        if (j == 1) {
            downsample_into(processed[j], remapped);
        } else {
            downsample_into(processed[j], [&](int x, int y, int k) { return processed[j - 1].at(x, y, k); });
        }
        gray_pyramid[j] = Grid(-in[j], nx + in[j], -in[j], ny + in[j], 1);
        Grid &finer = j == 1 ? gray : gray_pyramid[j - 1];
        downsample_into(gray_pyramid[j], [&](int x, int y, int) { return finer.at(x, y); });
    }

    auto processed_at = [&](int j, int x, int y, int k) {
        return j == 0 ? remapped(x, y, k) : processed[j].at(x, y, k);
    };
    auto processed_laplacian = [&](int j, int x, int y, int k) {
        if (j == J - 1) return processed_at(j, x, y, k);
        auto coarser = [&](int cx, int cy, int ck) { return processed[j + 1].at(cx, cy, ck); };
        return processed_at(j, x, y, k) - upsampled(coarser, x, y, k);
    };
    auto output_laplacian = [&](int j, int x, int y) {
        const float position = (j == 0 ? gray.at(x, y) : gray_pyramid[j].at(x, y)) * top;
        const int below = std::clamp(int(position), 0, K - 2);
        const float weight = position - float(below);
        return (1.0f - weight) * processed_laplacian(j, x, y, below) + weight * processed_laplacian(j, x, y, below + 1);
    };

    Grid collapsed;
    for (int j = J - 1; j >= 0; --j) {
        const int nx = nominal(width, j), ny = nominal(height, j);
        Grid here(-a[j], nx + a[j], -a[j], ny + a[j], 1);
        for (int y = here.y0(); y < here.y1(); ++y) {
            for (int x = here.x0(); x < here.x1(); ++x) {
                float value = output_laplacian(j, x, y);
                if (j < J - 1) {
                    value += upsampled([&](int cx, int cy, int) { return collapsed.at(cx, cy); }, x, y, 0);
                }
                here.at(x, y) = value;
            }
        }
        collapsed = std::move(here);
    }

    const float eps = 0.01f;
    for (int c = 0; c < 3; ++c) {
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                const float color = collapsed.at(x, y) * (floating(x, y, c) + eps) / (gray.at(x, y) + eps);
                output(x, y, c) = uint16_t(std::clamp(std::nearbyint(color * 65535.0f), 0.0f, 65535.0f));
            }
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    // The coarsest of the 8 levels of a 256×160 image is 2×2 pixels.
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    spec.input_ranges["input"] = {0, 65535};
    // Some tone compression, so that the K remapped images differ in more
    // than their detail term.
    spec.scalars["beta"] = 0.8;
    spec.tolerance = {1e-4, 2.0};
    spec.reference = local_laplacian_reference;
    return spec;
}
