#include "strata/dsl/image/BilateralGrid.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

#include <cmath>

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

void require_range(float range, const std::string &op, const std::string &name) {
    require(range > 0 && range <= 1, op + " '" + name + "': the range step must be in (0, 1], got " +
                                         std::to_string(range));
}

void require_single_output(const Func &f, const std::string &op, const std::string &name) {
    require(f.outputs() == 1, op + " '" + name + "': Func '" + f.name() + "' has " + std::to_string(f.outputs()) +
                                  " outputs; one is needed");
}

void require_guide(const Func &guide, const std::string &op, const std::string &name) {
    require(guide.defined(), op + " '" + name + "': the guide Func is undefined");
    require(guide.dimensions() == 2, op + " '" + name + "': the guide '" + guide.name() + "' must be an (x, y) image, it has " +
                                         std::to_string(guide.dimensions()) + " dimensions");
    require_single_output(guide, op, name);
}

// Fresh Vars for the dimensions of `f` from `first` on, named name_k0, name_k1, …
std::vector<Var> trailing_vars(const Func &f, int first, const std::string &name) {
    std::vector<Var> vars;
    for (int d = first; d < f.dimensions(); ++d) vars.emplace_back(name + "_k" + std::to_string(d - first));
    return vars;
}

std::vector<Expr> with_trailing(std::vector<Expr> args, const std::vector<Var> &trailing) {
    args.insert(args.end(), trailing.begin(), trailing.end());
    return args;
}

// The guide clamped to [0, 1] in units of the range step.
Expr z_coordinate(const Func &guide, const Expr &x, const Expr &y, float range) {
    return Halide::clamp(Halide::cast<float>(guide(x, y)), 0.0f, 1.0f) * (1.0f / range);
}

Expr mix(const Expr &a, const Expr &b, const Expr &w) {
    return a + (b - a) * w;
}

}  // namespace

int bilateral_grid_depth(float range) {
    require_range(range, "bilateral_grid_depth", "");
    // The tolerance keeps 1 / 0.1f (9.9999998…) at 10 cells, not 11.
    return int(std::ceil(1.0 / double(range) - 1e-6));
}

Func bilateral_grid(const Func &values, const Func &guide, int spatial, float range, const std::string &name) {
    const std::string op = "bilateral_grid";
    require_dimensions(values, 3, op);
    require_single_output(values, op, name);
    require_guide(guide, op, name);
    require(spatial >= 1, op + " '" + name + "': the spatial step must be at least 1 pixel, got " +
                              std::to_string(spatial));
    require_range(range, op, name);
    const int depth = bilateral_grid_depth(range);

    Var gx(name + "_x"), gy(name + "_y"), gz(name + "_z");
    const std::vector<Var> k = trailing_vars(values, 2, name);
    Func grid(name);
    grid(with_trailing({gx, gy, gz}, k)) = 0.0f;

    // Each cell gathers its s×s pixels and scatters them along z.
    Halide::RDom r(0, spatial, 0, spatial, name + "_r");
    const Expr x = gx * spatial + (r.x - spatial / 2), y = gy * spatial + (r.y - spatial / 2);
    const Expr z = Halide::clamp(Halide::cast<int>(z_coordinate(guide, x, y, range) + 0.5f), 0, depth);
    grid(with_trailing({gx, gy, z}, k)) += Halide::cast<float>(values(with_trailing({x, y}, k)));
    return grid;
}

Func bilateral_grid_blur_dim(const Func &grid, int dim, const std::string &name) {
    const std::string op = "bilateral_grid_blur_dim";
    require(dim >= 0 && dim < 3, op + " '" + name + "': blurs along x, y or z (0, 1, 2), not dimension " +
                                     std::to_string(dim));
    require_dimensions(grid, 3, op);
    require_single_output(grid, op, name);
    auto v = pure_vars(grid, name);
    auto at = [&](int offset) {
        std::vector<int> offsets(dim + 1, 0);
        offsets[dim] = offset;
        return shifted(grid, v, offsets);
    };
    Func out(name);
    out(v) = (at(-2) + 4.0f * at(-1) + 6.0f * at(0) + 4.0f * at(1) + at(2)) * (1.0f / 16.0f);
    return out;
}

Func bilateral_grid_blur(const Func &grid, const std::string &name) {
    Func blur_z = bilateral_grid_blur_dim(grid, 2, name + "_z");
    Func blur_x = bilateral_grid_blur_dim(blur_z, 0, name + "_x");
    return bilateral_grid_blur_dim(blur_x, 1, name);
}

Func bilateral_grid_slice(const Func &grid, const Func &guide, float spatial, float range, float pixel_offset,
                          const std::string &name) {
    const std::string op = "bilateral_grid_slice";
    require_dimensions(grid, 3, op);
    require_single_output(grid, op, name);
    require_guide(guide, op, name);
    require(spatial > 0, op + " '" + name + "': the spatial step must be positive, got " + std::to_string(spatial));
    require_range(range, op, name);
    const int depth = bilateral_grid_depth(range);

    Var x(name + "_x"), y(name + "_y");
    const std::vector<Var> k = trailing_vars(grid, 3, name);
    const Expr fx = (Halide::cast<float>(x) + pixel_offset) * (1.0f / spatial);
    const Expr fy = (Halide::cast<float>(y) + pixel_offset) * (1.0f / spatial);
    const Expr fz = z_coordinate(guide, x, y, range);
    const Expr ix = Halide::cast<int>(Halide::floor(fx)), iy = Halide::cast<int>(Halide::floor(fy));
    // z is data-dependent: clamping the lower corner keeps both z samples in [0, depth].
    const Expr iz = Halide::clamp(Halide::cast<int>(Halide::floor(fz)), 0, depth - 1);
    const Expr wx = fx - Halide::cast<float>(ix), wy = fy - Halide::cast<float>(iy), wz = fz - Halide::cast<float>(iz);
    auto corner = [&](int dx, int dy, int dz) { return grid(with_trailing({ix + dx, iy + dy, iz + dz}, k)); };
    auto bilinear = [&](int dz) {
        return mix(mix(corner(0, 0, dz), corner(1, 0, dz), wx), mix(corner(0, 1, dz), corner(1, 1, dz), wx), wy);
    };
    Func out(name);
    out(with_trailing({x, y}, k)) = mix(bilinear(0), bilinear(1), wz);
    return out;
}

Func bilateral_filter(const Func &input, int spatial, float range, const std::string &name) {
    require(input.defined() && input.dimensions() == 2,
            "bilateral_filter '" + name + "': the input must be an (x, y) image" +
                (input.defined() ? ", '" + input.name() + "' has " + std::to_string(input.dimensions()) + " dimensions"
                                 : std::string(", it is undefined")));
    Var x(name + "_x"), y(name + "_y"), k(name + "_k");
    // The homogeneous pair (value, 1): sums of values and of weights.
    Func values(name + "_values");
    values(x, y, k) = Halide::select(k == 0, Halide::cast<float>(input(x, y)), 1.0f);
    Func grid = bilateral_grid(values, input, spatial, range, name + "_grid");
    Func blur_z = bilateral_grid_blur_dim(grid, 2, name + "_blur_z");
    Func blur_x = bilateral_grid_blur_dim(blur_z, 0, name + "_blur_x");
    Func blur_y = bilateral_grid_blur_dim(blur_x, 1, name + "_blur_y");
    Func slice = bilateral_grid_slice(blur_y, input, float(spatial), range, 0.0f, name + "_slice");
    Func out(name);
    out(x, y) = slice(x, y, 0) / slice(x, y, 1);
    return out;
}

}  // namespace strata::dsl::image
