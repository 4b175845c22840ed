// MalvarDemosaic: the demosaicking of Malvar, He and Cutler (2004) written as
// the 5×5 filters printed in the paper, one pixel at a time, in plain C++.
// It is the reference of both the dsl's demosaic_malvar test and the
// camera_pipe app; it does not use the dsl, so it stays an independent check
// of it.
//
// Example:
//   // mosaic(x, y): the raw sample at (x, y); color_at(x, y): the color
//   // (0 R, 1 G, 2 B) of the filter over that site.
//   const float green = strata::testing::malvar_demosaic_at(mosaic, color_at, x, y, 1);
#pragma once

namespace strata::testing {

namespace malvar {

// The paper's filters in eighths; rows are dy = -2..2, columns dx = -2..2.
using Kernel = float[5][5];
inline constexpr Kernel kGreenAtRedOrBlue = {
    {0, 0, -1, 0, 0},
    {0, 0, 2, 0, 0},
    {-1, 2, 4, 2, -1},
    {0, 0, 2, 0, 0},
    {0, 0, -1, 0, 0}
};
inline constexpr Kernel kAlongRow = {
    {0, 0, 0.5f, 0, 0},
    {0, -1, 0, -1, 0},
    {-1, 4, 5, 4, -1},
    {0, -1, 0, -1, 0},
    {0, 0, 0.5f, 0, 0}
};
inline constexpr Kernel kAlongColumn = {
    {0, 0, -1, 0, 0},
    {0, -1, 4, -1, 0},
    {0.5f, 0, 5, 0, 0.5f},
    {0, -1, 4, -1, 0},
    {0, 0, -1, 0, 0}
};
inline constexpr Kernel kDiagonal = {
    {0, 0, -1.5f, 0, 0},
    {0, 2, 0, 2, 0},
    {-1.5f, 0, 6, 0, -1.5f},
    {0, 2, 0, 2, 0},
    {0, 0, -1.5f, 0, 0}
};

}  // namespace malvar

// The value of color `wanted` (0 R, 1 G, 2 B) at (x, y): the sample itself
// where the site measures that color, else the paper's filter for the pair
// (measured, wanted). The mosaic is read up to 2 pixels around (x, y).
template <typename Mosaic, typename ColorAt>
float malvar_demosaic_at(const Mosaic &mosaic, ColorAt color_at, int x, int y, int wanted) {
    constexpr int kGreen = 1;
    const int measured = color_at(x, y);
    if (measured == wanted) return mosaic(x, y);
    const malvar::Kernel *k = &malvar::kDiagonal;
    if (wanted == kGreen) {
        k = &malvar::kGreenAtRedOrBlue;
    } else if (measured == kGreen) {
        // Red or blue at a green site: its neighbors of that color lie along the row or along the column.
        k = color_at(x + 1, y) == wanted ? &malvar::kAlongRow : &malvar::kAlongColumn;
    }
    float sum = 0;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) sum += (*k)[dy + 2][dx + 2] * mosaic(x + dx, y + dy);
    return sum / 8;
}

}  // namespace strata::testing
