// bgu, in plain C++ (the linear algebra in double): the low-res pair by
// direct bilinear sampling and the same tone curve, the 22 sums per grid
// cell, the binomial blurs, a Gaussian-elimination solve of each cell's
// regularized normal equations, and the trilinear slice applied per pixel.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace {

constexpr int kFactor = 4;        // the generator's defaults
constexpr int kSpatial = 8;
constexpr float kRange = 0.125f;
constexpr int kDepth = 8;         // 1 / kRange
constexpr double kLambda = 0.1;
constexpr int kSums = 22;         // the upper triangle of a a^T (10), then a o^T (12), o the low-res output

using Sums = std::array<double, kSums>;

// A dense 3-D array of Sums over [x0, x0 + nx) × [y0, y0 + ny) × [z0, z0 + nz).
struct Grid {
    int x0, nx, y0, ny, z0, nz;
    std::vector<Sums> cells;
    Grid(int x0_, int nx_, int y0_, int ny_, int z0_, int nz_)
        : x0(x0_), nx(nx_), y0(y0_), ny(ny_), z0(z0_), nz(nz_), cells(size_t(nx_) * ny_ * nz_, Sums{}) {
    }
    Sums &operator()(int x, int y, int z) {
        return cells[(size_t(z - z0) * ny + (y - y0)) * nx + (x - x0)];
    }
};

// Solves the 4×4 system m x = rhs by Gaussian elimination with partial pivoting.
std::array<double, 4> solve4(std::array<std::array<double, 4>, 4> m, std::array<double, 4> rhs) {
    for (int col = 0; col < 4; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 4; ++r)
            if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
        std::swap(m[col], m[pivot]);
        std::swap(rhs[col], rhs[pivot]);
        for (int r = col + 1; r < 4; ++r) {
            const double f = m[r][col] / m[col][col];
            for (int c = col; c < 4; ++c) m[r][c] -= f * m[col][c];
            rhs[r] -= f * rhs[col];
        }
    }
    std::array<double, 4> x{};
    for (int r = 3; r >= 0; --r) {
        double s = rhs[r];
        for (int c = r + 1; c < 4; ++c) s -= m[r][c] * x[c];
        x[r] = s / m[r][r];
    }
    return x;
}

void bgu_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    const int low_width = width / kFactor, low_height = height / kFactor;

    // The low-res input at any integer position: bilinear at the aligned
    // pixel centre, with clamped taps.
    auto low_in = [&](int x, int y, int c) {
        const double sx = (x + 0.5) * width / low_width - 0.5, sy = (y + 0.5) * height / low_height - 0.5;
        const int bx = int(std::floor(sx)), by = int(std::floor(sy));
        const double wx = sx - bx, wy = sy - by;
        auto in = [&](int px, int py) { return double(input(std::clamp(px, 0, width - 1), std::clamp(py, 0, height - 1), c)); };
        return (1 - wy) * ((1 - wx) * in(bx, by) + wx * in(bx + 1, by)) + wy * ((1 - wx) * in(bx, by + 1) + wx * in(bx + 1, by + 1));
    };
    auto low_out = [&](const std::array<double, 3> &rgb) {
        std::array<double, 3> t, out;
        for (int c = 0; c < 3; ++c) {
            const double v = std::clamp(rgb[c], 0.0, 1.0);
            t[c] = v * v * (3 - 2 * v);
        }
        const double luma = 0.25 * t[0] + 0.5 * t[1] + 0.25 * t[2];
        for (int c = 0; c < 3; ++c) out[c] = luma + 1.3 * (t[c] - luma);
        return out;
    };
    auto luma = [](double r, double g, double b) { return 0.25 * r + 0.5 * g + 0.25 * b; };

    // The slice reads nodes floor((x - 1.5) / 32) … + 1; the blurs reach two cells further.
    const double step = double(kFactor) * kSpatial, offset = 0.5 * (1 - kFactor);
    const int gx_lo = int(std::floor(offset / step)), gx_hi = int(std::floor((width - 1 + offset) / step)) + 1;
    const int gy_lo = int(std::floor(offset / step)), gy_hi = int(std::floor((height - 1 + offset) / step)) + 1;
    Grid grid(gx_lo - 2, gx_hi - gx_lo + 5, gy_lo - 2, gy_hi - gy_lo + 5, -2, kDepth + 5);
    for (int gy = gy_lo - 2; gy <= gy_hi + 2; ++gy) {
        for (int gx = gx_lo - 2; gx <= gx_hi + 2; ++gx) {
            for (int ry = 0; ry < kSpatial; ++ry) {
                for (int rx = 0; rx < kSpatial; ++rx) {
                    const int px = gx * kSpatial + rx - kSpatial / 2, py = gy * kSpatial + ry - kSpatial / 2;
                    const std::array<double, 3> rgb = {low_in(px, py, 0), low_in(px, py, 1), low_in(px, py, 2)};
                    const std::array<double, 3> out = low_out(rgb);
                    const double g = std::clamp(luma(rgb[0], rgb[1], rgb[2]), 0.0, 1.0);
                    const int z = std::clamp(int(g / kRange + 0.5), 0, kDepth);
                    const std::array<double, 4> a = {rgb[0], rgb[1], rgb[2], 1.0};
                    Sums &cell = grid(gx, gy, z);
                    int n = 0;
                    for (int i = 0; i < 4; ++i)
                        for (int j = i; j < 4; ++j) cell[n++] += a[i] * a[j];
                    for (int i = 0; i < 4; ++i)
                        for (int c = 0; c < 3; ++c) cell[n++] += a[i] * out[c];
                }
            }
        }
    }

    // Blur along z, x, y with (1 4 6 4 1) / 16, each pass over the cells the next one reads.
    const double taps[5] = {1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0};
    auto blur = [&](Grid &src, int dim, int x_lo, int x_hi, int y_lo, int y_hi) {
        Grid dst(x_lo, x_hi - x_lo + 1, y_lo, y_hi - y_lo + 1, 0, kDepth + 1);
        for (int z = 0; z <= kDepth; ++z)
            for (int y = y_lo; y <= y_hi; ++y)
                for (int x = x_lo; x <= x_hi; ++x)
                    for (int d = -2; d <= 2; ++d) {
                        const Sums &s = src(x + (dim == 0 ? d : 0), y + (dim == 1 ? d : 0), z + (dim == 2 ? d : 0));
                        for (int k = 0; k < kSums; ++k) dst(x, y, z)[k] += taps[d + 2] * s[k];
                    }
        return dst;
    };
    Grid blur_z = blur(grid, 2, gx_lo - 2, gx_hi + 2, gy_lo - 2, gy_hi + 2);
    Grid blur_x = blur(blur_z, 0, gx_lo, gx_hi, gy_lo - 2, gy_hi + 2);
    Grid blur_y = blur(blur_x, 1, gx_lo, gx_hi, gy_lo, gy_hi);

    // Per cell: X (4×3) with (A^T A + λ I) X = A^T O + λ [I3; 0]; coefficient 3 i + c is X(i, c).
    std::map<std::tuple<int, int, int>, std::array<double, 12>> affine;
    for (int z = 0; z <= kDepth; ++z) {
        for (int gy = gy_lo; gy <= gy_hi; ++gy) {
            for (int gx = gx_lo; gx <= gx_hi; ++gx) {
                const Sums &s = blur_y(gx, gy, z);
                std::array<std::array<double, 4>, 4> m{};
                int n = 0;
                for (int i = 0; i < 4; ++i)
                    for (int j = i; j < 4; ++j) m[i][j] = m[j][i] = s[n++];
                for (int i = 0; i < 4; ++i) m[i][i] += kLambda;
                std::array<double, 12> x{};
                for (int c = 0; c < 3; ++c) {
                    std::array<double, 4> rhs;
                    for (int i = 0; i < 4; ++i) rhs[i] = s[10 + 3 * i + c] + (i == c ? kLambda : 0.0);
                    const std::array<double, 4> column = solve4(m, rhs);
                    for (int i = 0; i < 4; ++i) x[3 * i + c] = column[i];
                }
                affine[{gx, gy, z}] = x;
            }
        }
    }

    for (int y = 0; y < output.dim(1).extent(); ++y) {
        for (int x = 0; x < output.dim(0).extent(); ++x) {
            const double r = input(x, y, 0), g = input(x, y, 1), b = input(x, y, 2);
            const double fx = (x + offset) / step, fy = (y + offset) / step;
            const double fz = std::clamp(luma(r, g, b), 0.0, 1.0) / kRange;
            const int ix = int(std::floor(fx)), iy = int(std::floor(fy));
            const int iz = std::clamp(int(std::floor(fz)), 0, kDepth - 1);
            const double wx = fx - ix, wy = fy - iy, wz = fz - iz;
            std::array<double, 12> coefficients{};
            for (int dz = 0; dz < 2; ++dz)
                for (int dy = 0; dy < 2; ++dy)
                    for (int dx = 0; dx < 2; ++dx) {
                        const double w = (dx ? wx : 1 - wx) * (dy ? wy : 1 - wy) * (dz ? wz : 1 - wz);
                        const std::array<double, 12> &corner = affine.at({ix + dx, iy + dy, iz + dz});
                        for (int k = 0; k < 12; ++k) coefficients[k] += w * corner[k];
                    }
            const double a[4] = {r, g, b, 1.0};
            for (int c = 0; c < 3; ++c) {
                double v = 0;
                for (int i = 0; i < 4; ++i) v += a[i] * coefficients[3 * i + c];
                output(x, y, c) = float(v);
            }
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    // The resize reads the input's own extent.
    spec.input_extents["input"] = {256, 160, 3};
    spec.output_extents["output"] = {256, 160, 3};
    // float32 sums and Cholesky against double Gaussian elimination: the
    // measured error is below 5e-6 absolute.
    spec.tolerance = {1e-4, 5e-5};
    spec.reference = bgu_reference;
    return spec;
}
