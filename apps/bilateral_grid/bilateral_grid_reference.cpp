// bilateral_grid, in plain C++: build the grid cell by cell from the
// edge-repeated image, blur it along z, x and y, and read it back
// trilinearly at every pixel.
#include "strata/harness/AppCheckSpec.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int kSpatial = 8;       // the generator's spatial_sigma
constexpr float kRange = 0.1f;    // the generator's range_sigma
constexpr int kDepth = 10;        // ceil(1 / kRange): z cells 0 … 10

// A 4-D float array over [x0, x0 + nx) × [y0, y0 + ny) × [z0, z0 + nz) × {0, 1}.
struct Grid {
    int x0, nx, y0, ny, z0, nz;
    std::vector<float> data;
    Grid(int x0_, int nx_, int y0_, int ny_, int z0_, int nz_)
        : x0(x0_), nx(nx_), y0(y0_), ny(ny_), z0(z0_), nz(nz_), data(size_t(nx_) * ny_ * nz_ * 2, 0.0f) {
    }
    float &operator()(int x, int y, int z, int k) {
        return data[(((size_t(k) * nz + (z - z0)) * ny + (y - y0)) * nx) + (x - x0)];
    }
};

float mix(float a, float b, float w) {
    return a + (b - a) * w;
}

void bilateral_grid_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = input.dim(0).extent(), height = input.dim(1).extent();
    const int out_width = output.dim(0).extent(), out_height = output.dim(1).extent();
    auto in = [&](int x, int y) { return input(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1)); };
    auto z_of = [](float v) { return std::clamp(v, 0.0f, 1.0f) * (1.0f / kRange); };

    // The slice reads cells 0 … (extent - 1) / s + 1; the x and y blurs reach 2 further.
    const int cells_x = (out_width - 1) / kSpatial + 2, cells_y = (out_height - 1) / kSpatial + 2;
    Grid grid(-2, cells_x + 4, -2, cells_y + 4, -2, kDepth + 5);
    for (int gy = -2; gy < cells_y + 2; ++gy) {
        for (int gx = -2; gx < cells_x + 2; ++gx) {
            // Cell (gx, gy) holds the pixels [g s - s/2, g s - s/2 + s) in each direction.
            for (int ry = 0; ry < kSpatial; ++ry) {
                for (int rx = 0; rx < kSpatial; ++rx) {
                    const float v = in(gx * kSpatial + rx - kSpatial / 2, gy * kSpatial + ry - kSpatial / 2);
                    const int z = std::clamp(int(z_of(v) + 0.5f), 0, kDepth);
                    grid(gx, gy, z, 0) += v;
                    grid(gx, gy, z, 1) += 1.0f;
                }
            }
        }
    }

    auto binomial = [](float a, float b, float c, float d, float e) {
        return (a + 4.0f * b + 6.0f * c + 4.0f * d + e) * (1.0f / 16.0f);
    };
    Grid blur_z(-2, cells_x + 4, -2, cells_y + 4, 0, kDepth + 1);
    for (int k = 0; k < 2; ++k)
        for (int z = 0; z <= kDepth; ++z)
            for (int gy = -2; gy < cells_y + 2; ++gy)
                for (int gx = -2; gx < cells_x + 2; ++gx)
                    blur_z(gx, gy, z, k) = binomial(grid(gx, gy, z - 2, k), grid(gx, gy, z - 1, k), grid(gx, gy, z, k),
                                                    grid(gx, gy, z + 1, k), grid(gx, gy, z + 2, k));
    Grid blur_x(0, cells_x, -2, cells_y + 4, 0, kDepth + 1);
    for (int k = 0; k < 2; ++k)
        for (int z = 0; z <= kDepth; ++z)
            for (int gy = -2; gy < cells_y + 2; ++gy)
                for (int gx = 0; gx < cells_x; ++gx)
                    blur_x(gx, gy, z, k) = binomial(blur_z(gx - 2, gy, z, k), blur_z(gx - 1, gy, z, k), blur_z(gx, gy, z, k),
                                                    blur_z(gx + 1, gy, z, k), blur_z(gx + 2, gy, z, k));
    Grid blur_y(0, cells_x, 0, cells_y, 0, kDepth + 1);
    for (int k = 0; k < 2; ++k)
        for (int z = 0; z <= kDepth; ++z)
            for (int gy = 0; gy < cells_y; ++gy)
                for (int gx = 0; gx < cells_x; ++gx)
                    blur_y(gx, gy, z, k) = binomial(blur_x(gx, gy - 2, z, k), blur_x(gx, gy - 1, z, k), blur_x(gx, gy, z, k),
                                                    blur_x(gx, gy + 1, z, k), blur_x(gx, gy + 2, z, k));

    for (int y = 0; y < out_height; ++y) {
        for (int x = 0; x < out_width; ++x) {
            const float fx = float(x) * (1.0f / kSpatial), fy = float(y) * (1.0f / kSpatial);
            const float fz = z_of(in(x, y));
            const int ix = int(std::floor(fx)), iy = int(std::floor(fy));
            const int iz = std::clamp(int(std::floor(fz)), 0, kDepth - 1);
            const float wx = fx - float(ix), wy = fy - float(iy), wz = fz - float(iz);
            float sliced[2];
            for (int k = 0; k < 2; ++k) {
                auto plane = [&](int z) {
                    return mix(mix(blur_y(ix, iy, z, k), blur_y(ix + 1, iy, z, k), wx),
                               mix(blur_y(ix, iy + 1, z, k), blur_y(ix + 1, iy + 1, z, k), wx), wy);
                };
                sliced[k] = mix(plane(iz), plane(iz + 1), wz);
            }
            output(x, y) = sliced[0] / sliced[1];
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["input"] = {256, 160};
    spec.output_extents["output"] = {256, 160};
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = bilateral_grid_reference;
    return spec;
}
