// bgu: bilateral guided upsampling (Chen, Adams, Wadhwa, Hasinoff 2016) of a
// color operator. An expensive operator is run at low resolution only; BGU
// fits, in every cell of a bilateral grid over the low-resolution input, the
// affine color transform (a 3×4 matrix) that best maps low-res input colors
// to low-res output colors, and applies to each full-resolution pixel the
// transform sliced (trilinearly) from the grid at its position and luma.
//
// So that the app has one input, the low-resolution pair is made in the
// pipeline: low_in is the input resized by 1/factor (bilinear, 4 by
// default), and low_out is a stand-in operator on it, a smoothstep tone
// curve per channel followed by a 1.3× saturation boost around the luma.
// The guide (grid z) is the luma (r + 2g + b) / 4 of each resolution.
//
// The fit follows the paper's structure: with a = (r, g, b, 1) a low-res
// input color and o the low-res output color at the same pixel, the sums
// A^T A = sum of a a^T (4×4, symmetric: 10 values) and A^T O = sum of a o^T
// (4×3: 12 values) are splatted into the grid (cells of 8×8 low-res pixels
// × 1/8 of luma), blurred, and the regularized normal equations
// (A^T A + λ I) X = A^T O + λ [I3; 0] are solved per cell by a 4×4
// Cholesky factorization (λ = 0.1, in units of pixel weight); out = X^T a. Simplifications, documented: the grid blur (binomial 1 4 6
// 4 1 along z, x, y) stands in for the paper's smoothness term, the
// regularizer pulls toward the identity transform instead of the paper's
// gain-based prior, pixels splat into their nearest cell instead of
// trilinearly, and the solve is direct per cell instead of one global sparse
// least-squares problem.
//
// Stages: low_in_x, low_in (resize) → low_out (tone curve) → fit_values
// (22 products, inlined) → fit_grid (splat, data-dependent z) →
// fit_blur_z → fit_blur_x → fit_blur (grid blur) → solve (12 coefficients
// per cell, a Tuple) → affine (the coefficients as one grid) → sliced
// (trilinear, data-dependent z, inlined) → output. Estimates: 1536×2560×3
// in and out (a 384×640 low-res pair, a 48×80×9 grid). Image sizes should
// be multiples of the factor, so that the low-res pixel centres line up.
//
// Notable structure: a 22-channel data-dependent scatter, per-cell dense
// linear algebra, and a 12-channel data-dependent gather per output pixel.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/image/BilateralGrid.h"
#include "strata/dsl/image/Resize.h"

#include <array>

namespace {

using namespace Halide;
namespace image = strata::dsl::image;

// Index of the entry (i, j), i <= j, of a symmetric 4×4 matrix stored as its upper triangle row by row.
constexpr int upper(int i, int j) {
    return i * 4 - i * (i - 1) / 2 + (j - i);
}
constexpr int kAtA = 10;           // values 0 … 9: A^T A
constexpr int kValues = kAtA + 12;  // values 10 … 21: A^T O, entry (i, c) at 10 + 3 i + c

class Bgu : public Generator<Bgu> {
public:
    GeneratorParam<int> factor{"factor", 4, 1, 16};
    GeneratorParam<int> spatial_sigma{"spatial_sigma", 8, 1, 64};
    GeneratorParam<float> range_sigma{"range_sigma", 0.125f, 0.01f, 1.0f};
    GeneratorParam<float> lambda{"lambda", 0.1f, 0.0001f, 1000.0f};

    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        const Expr width = input.dim(0).extent(), height = input.dim(1).extent();
        Func low_in = image::resize_bilinear(input, width, height, width / factor, height / factor, "low_in");

        // The stand-in for the expensive operator, at low resolution.
        Func low_out("low_out");
        {
            auto curve = [&](int ch) {
                const Expr v = clamp(low_in(x, y, ch), 0.0f, 1.0f);
                return v * v * (3.0f - 2.0f * v);
            };
            const Expr r = curve(0), g = curve(1), b = curve(2);
            const Expr luma = 0.25f * r + 0.5f * g + 0.25f * b;
            low_out(x, y, c) = luma + 1.3f * (mux(c, {r, g, b}) - luma);
        }

        // Per low-res pixel: the entries of a a^T and a o^T, a = (r, g, b, 1), o = low_out.
        Func fit_values("fit_values");
        {
            std::array<Expr, 4> a = {low_in(x, y, 0), low_in(x, y, 1), low_in(x, y, 2), 1.0f};
            std::vector<Expr> entries(kValues);
            for (int i = 0; i < 4; ++i)
                for (int j = i; j < 4; ++j) entries[upper(i, j)] = a[i] * a[j];
            for (int i = 0; i < 4; ++i)
                for (int ch = 0; ch < 3; ++ch) entries[kAtA + 3 * i + ch] = a[i] * low_out(x, y, ch);
            fit_values(x, y, k) = mux(k, entries);
        }
        Func low_guide("low_guide");
        low_guide(x, y) = luma(low_in, x, y);

        Func grid = image::bilateral_grid(fit_values, low_guide, spatial_sigma, range_sigma, "fit_grid");
        Func blurred = image::bilateral_grid_blur(grid, "fit_blur");

        Func solve("solve");
        solve(gx, gy, gz) = solve_cell(blurred, gx, gy, gz);
        Func affine("affine");
        {
            std::vector<Expr> coefficients;
            for (int i = 0; i < 12; ++i) coefficients.push_back(solve(gx, gy, gz)[i]);
            affine(gx, gy, gz, k) = mux(k, coefficients);
        }

        Func guide("guide");
        guide(x, y) = luma(input, x, y);
        // Grid node gx sits on low-res pixel gx s, i.e. full-res pixel
        // (gx s + 0.5) factor - 0.5: spatial step factor · s, offset (1 - factor) / 2.
        Func sliced = image::bilateral_grid_slice(affine, guide, float(int(factor) * int(spatial_sigma)), range_sigma,
                                                  0.5f * float(1 - int(factor)), "sliced");
        // out_c = sum over i of a_i X(i, c), a = (r, g, b, 1); X(i, c) is coefficient 3 i + c.
        Expr result = sliced(x, y, 9 + c);
        for (int i = 0; i < 3; ++i) result += sliced(x, y, 3 * i + c) * input(x, y, i);
        output(x, y, c) = result;

        strata::dsl::estimate_extents(input, {1536, 2560, 3});
        strata::dsl::estimate_extents(output, {1536, 2560, 3});

        if (!using_autoscheduler()) {
            schedule_manually(low_in, low_out, grid, strata::dsl::find_stage(blurred, "fit_blur_z"),
                              strata::dsl::find_stage(blurred, "fit_blur_x"), blurred, solve, affine);
        }
    }

private:
    static Expr luma(const Func &rgb, const Expr &px, const Expr &py) {
        return 0.25f * rgb(px, py, 0) + 0.5f * rgb(px, py, 1) + 0.25f * rgb(px, py, 2);
    }

    // The 12 coefficients X(i, c) (index 3 i + c) solving
    // (A^T A + λ I) X = A^T O + λ [I3; 0] in one cell, by Cholesky.
    Tuple solve_cell(const Func &sums, const Expr &cx, const Expr &cy, const Expr &cz) const {
        auto at = [&](int index) { return sums(cx, cy, cz, index); };
        const float reg = lambda;
        Expr m[4][4];
        for (int i = 0; i < 4; ++i)
            for (int j = i; j < 4; ++j) m[i][j] = m[j][i] = at(upper(i, j)) + (i == j ? reg : 0.0f);
        // M = L L^T. The diagonal is at least λ in exact arithmetic; the max keeps rounding from making it negative.
        Expr l[4][4];
        for (int j = 0; j < 4; ++j) {
            Expr d = m[j][j];
            for (int p = 0; p < j; ++p) d -= l[j][p] * l[j][p];
            l[j][j] = sqrt(max(d, 1e-12f));
            for (int i = j + 1; i < 4; ++i) {
                Expr e = m[i][j];
                for (int p = 0; p < j; ++p) e -= l[i][p] * l[j][p];
                l[i][j] = e / l[j][j];
            }
        }
        std::vector<Expr> coefficients(12);
        for (int ch = 0; ch < 3; ++ch) {
            Expr rhs[4], z[4], sol[4];
            for (int i = 0; i < 4; ++i) rhs[i] = at(kAtA + 3 * i + ch) + (i == ch ? reg : 0.0f);
            for (int i = 0; i < 4; ++i) {  // L z = rhs
                z[i] = rhs[i];
                for (int p = 0; p < i; ++p) z[i] -= l[i][p] * z[p];
                z[i] = z[i] / l[i][i];
            }
            for (int i = 3; i >= 0; --i) {  // L^T x = z
                sol[i] = z[i];
                for (int p = i + 1; p < 4; ++p) sol[i] -= l[p][i] * sol[p];
                sol[i] = sol[i] / l[i][i];
            }
            for (int i = 0; i < 4; ++i) coefficients[3 * i + ch] = sol[i];
        }
        return Tuple(coefficients);
    }

    // Five kernels.
    // 1. low_in (the resize; its x pass inlined), 32×8 low-res pixels per block.
    // 2. low_out, likewise.
    // 3. fit_blur_z, one thread per (grid column, sum): 22 × 4 × 4 threads,
    //    the sum index innermost so that a warp's lanes read the same
    //    low-res pixels (a broadcast) and write consecutive words (the
    //    storage puts the sum index innermost). Each thread splats its
    //    cell's 8×8 pixels into its own thread-private column of 13 z (a
    //    data-dependent index, but only 13 words: ptxas keeps them in
    //    registers), then blurs it along z.
    // 4. affine, one thread per cell of an 8×8 tile of one z slice: the
    //    tile's fit_blur_x (8×12 cells) and fit_blur (8×8) sums are staged
    //    in shared memory (8.4 + 5.6 KB), then each thread solves its cell in
    //    registers (the solve Tuple) and writes its 12 coefficients, stored
    //    contiguously.
    // 5. output, 32×8 pixels per block, channels unrolled: the slice is
    //    inlined, 8 corners × 12 coefficients gathered through the L1 cache,
    //    shared by the three channels.
    void schedule_manually(Func low_in, Func low_out, Func grid, Func blur_z, Func blur_x, Func blur_y, Func solve,
                           Func affine) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), ko("ko"), ki("ki");
        for (Func f : {low_in, low_out}) {
            Var fx = f.args()[0], fy = f.args()[1], fc = f.args()[2];
            f.compute_root().bound(fc, 0, 3).reorder(fc, fx, fy).unroll(fc).gpu_tile(fx, fy, xo, yo, xi, yi, 32, 8);
        }

        Var zx = blur_z.args()[0], zy = blur_z.args()[1], zz = blur_z.args()[2], zk = blur_z.args()[3];
        blur_z.compute_root()
            .bound(zk, 0, kValues)
            .reorder_storage(zk, zx, zy, zz)
            .reorder(zz, zk, zx, zy)
            .gpu_tile(zk, zx, zy, ko, xo, yo, ki, xi, yi, kValues, 4, 4);
        grid.compute_at(blur_z, ki).unroll(grid.args()[2]);
        grid.update().unroll(grid.rvars()[0]);

        Var ax = affine.args()[0], ay = affine.args()[1], az = affine.args()[2], ak = affine.args()[3];
        affine.compute_root()
            .bound(ak, 0, 12)
            .reorder_storage(ak, ax, ay, az)
            .reorder(ak, ax, ay, az)
            .unroll(ak)
            .gpu_tile(ax, ay, xo, yo, xi, yi, 8, 8)
            .gpu_blocks(az);
        solve.compute_at(affine, xi);
        for (Func f : {blur_y, blur_x}) {
            Var fx = f.args()[0], fy = f.args()[1], fk = f.args()[3];
            f.compute_at(affine, xo).reorder(fk, fx, fy).unroll(fk).gpu_threads(fx, fy);
        }

        output.compute_root()
            .bound(c, 0, 3)
            .reorder(c, x, y)
            .unroll(c)
            .gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
    }

    Var x{"x"}, y{"y"}, c{"c"}, k{"k"}, gx{"gx"}, gy{"gy"}, gz{"gz"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Bgu, bgu)
