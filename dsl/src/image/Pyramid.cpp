#include "strata/dsl/image/Pyramid.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

#include <map>
#include <utility>

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;

namespace {

// (t, w): a coarse sample i is the sum of w * fine(2 i + t).
using Taps = std::vector<std::pair<int, float>>;

Taps kernel_taps(PyramidKernel kernel) {
    switch (kernel) {
    case PyramidKernel::Binomial3: return {{-1, 0.25f}, {0, 0.5f}, {1, 0.25f}};
    case PyramidKernel::Binomial4: return {{-1, 0.125f}, {0, 0.375f}, {1, 0.375f}, {2, 0.125f}};
    case PyramidKernel::Binomial5: return {{-2, 0.0625f}, {-1, 0.25f}, {0, 0.375f}, {1, 0.25f}, {2, 0.0625f}};
    }
    require(false, "pyramid: unknown PyramidKernel value " + std::to_string(int(kernel)));
    return {};
}

std::string level_name(const std::string &name, int level) {
    return name + "_level" + std::to_string(level);
}

Func downsample_along(const Func &input, int dim, const Taps &taps, const std::string &name) {
    std::vector<Halide::Var> v = pure_vars(input, name);
    Expr sum;
    for (const auto &[t, w] : taps) {
        Expr term = w * Halide::cast<float>(replaced(input, v, dim, 2 * v[dim] + t));
        sum = sum.defined() ? sum + term : term;
    }
    Func out(name);
    out(v) = sum;
    return out;
}

// The expansion, written per output parity p: fine sample 2 m + p collects
// 2 w from coarse sample m + (p - t) / 2 for every tap t of p's parity. The
// two parities' weights of each coarse sample are blended by p so that no
// select is needed.
Func upsample_along(const Func &input, int dim, const Taps &taps, const std::string &name) {
    std::map<int, std::pair<float, float>> weights;  // coarse offset -> (even, odd) weight
    for (const auto &[t, w] : taps) {
        const int p = t & 1;  // the parity of the fine samples this tap reaches
        float &slot = p == 0 ? weights[(p - t) / 2].first : weights[(p - t) / 2].second;
        slot += 2 * w;
    }
    std::vector<Halide::Var> v = pure_vars(input, name);
    const Expr coarse = v[dim] / 2;
    const Expr odd = Halide::cast<float>(v[dim] % 2);
    Expr sum;
    for (const auto &[offset, w] : weights) {
        const auto [even_weight, odd_weight] = w;
        Expr weight;
        if (even_weight == odd_weight) {
            weight = even_weight;
        } else if (even_weight == 0) {
            weight = odd_weight * odd;
        } else if (odd_weight == 0) {
            weight = even_weight * (1.0f - odd);
        } else {
            weight = even_weight + (odd_weight - even_weight) * odd;
        }
        Expr term = weight * Halide::cast<float>(replaced(input, v, dim, coarse + offset));
        sum = sum.defined() ? sum + term : term;
    }
    Func out(name);
    out(v) = sum;
    return out;
}

void require_levels(const std::vector<Func> &levels, const std::string &op) {
    require(!levels.empty(), op + ": needs at least one level");
    for (size_t i = 0; i < levels.size(); ++i) {
        require_dimensions(levels[i], 2, op + " level " + std::to_string(i));
        require(levels[i].dimensions() == levels[0].dimensions(),
                op + ": level " + std::to_string(i) + " ('" + levels[i].name() + "') has " +
                    std::to_string(levels[i].dimensions()) + " dimensions, level 0 has " +
                    std::to_string(levels[0].dimensions()));
    }
}

}  // namespace

Func downsample(const Func &input, PyramidKernel kernel, const std::string &name) {
    require_dimensions(input, 2, "downsample '" + name + "'");
    const Taps taps = kernel_taps(kernel);
    return downsample_along(downsample_along(input, 0, taps, name + "_x"), 1, taps, name);
}

Func upsample(const Func &input, PyramidKernel kernel, const std::string &name) {
    require_dimensions(input, 2, "upsample '" + name + "'");
    const Taps taps = kernel_taps(kernel);
    return upsample_along(upsample_along(input, 0, taps, name + "_x"), 1, taps, name);
}

std::vector<Func> gaussian_pyramid(const Func &input, int levels, PyramidKernel kernel, const std::string &name) {
    const std::string op = "gaussian_pyramid '" + name + "'";
    require_dimensions(input, 2, op);
    require(levels >= 1, op + ": needs at least one level, got " + std::to_string(levels));
    std::vector<Halide::Var> v = pure_vars(input, level_name(name, 0));
    Func base(level_name(name, 0));
    base(v) = Halide::cast<float>(input(v));
    std::vector<Func> pyramid = {base};
    for (int i = 1; i < levels; ++i) pyramid.push_back(downsample(pyramid.back(), kernel, level_name(name, i)));
    return pyramid;
}

std::vector<Func> laplacian_pyramid(const std::vector<Func> &gaussian, PyramidKernel kernel, const std::string &name) {
    require_levels(gaussian, "laplacian_pyramid '" + name + "'");
    const int n = int(gaussian.size());
    std::vector<Func> pyramid;
    for (int i = 0; i < n; ++i) {
        std::vector<Halide::Var> v = pure_vars(gaussian[i], level_name(name, i));
        Func level(level_name(name, i));
        if (i == n - 1) {
            level(v) = gaussian[i](v);
        } else {
            Func coarser = upsample(gaussian[i + 1], kernel, level_name(name, i) + "_up");
            level(v) = gaussian[i](v) - coarser(v);
        }
        pyramid.push_back(level);
    }
    return pyramid;
}

Func collapse_laplacian_pyramid(const std::vector<Func> &laplacian, PyramidKernel kernel, const std::string &name) {
    require_levels(laplacian, "collapse_laplacian_pyramid '" + name + "'");
    const int n = int(laplacian.size());
    if (n == 1) {
        std::vector<Halide::Var> v = pure_vars(laplacian[0], name);
        Func copy(name);
        copy(v) = laplacian[0](v);
        return copy;
    }
    Func partial = laplacian[n - 1];
    for (int i = n - 2; i >= 0; --i) {
        const std::string level = i == 0 ? name : level_name(name, i);
        std::vector<Halide::Var> v = pure_vars(laplacian[i], level);
        Func coarser = upsample(partial, kernel, level + "_up");
        Func sum(level);
        sum(v) = laplacian[i](v) + coarser(v);
        partial = sum;
    }
    return partial;
}

}  // namespace strata::dsl::image
