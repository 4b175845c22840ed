#include "strata/dsl/image/Demosaic.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

#include <array>
#include <vector>

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

enum Color { kRed = 0, kGreen = 1, kBlue = 2 };

// The colors of the quad's sites (0, 0), (1, 0), (0, 1), (1, 1).
std::array<Color, 4> site_colors(BayerPattern pattern) {
    switch (pattern) {
    case BayerPattern::RGGB: return {kRed, kGreen, kGreen, kBlue};
    case BayerPattern::GRBG: return {kGreen, kRed, kBlue, kGreen};
    case BayerPattern::GBRG: return {kGreen, kBlue, kRed, kGreen};
    case BayerPattern::BGGR: return {kBlue, kGreen, kGreen, kRed};
    }
    require(false, "demosaic: unknown BayerPattern value " + std::to_string(int(pattern)));
    return {};
}

// One filter tap, at a full-resolution offset from the site being filled in.
struct Tap {
    int dx, dy;
    float weight;
};
using Filter = std::vector<Tap>;

// The filters that fill in a missing color. `along_row` picks between the two
// cases at a green site: the wanted color's sites are the left and right
// neighbors (true) or the upper and lower ones (false).
struct FilterSet {
    Filter green_at_red_or_blue;
    Filter along_row;
    Filter along_column;
    Filter diagonal;
};

Filter transposed(const Filter &filter) {
    Filter result;
    for (const Tap &t : filter) result.push_back({t.dy, t.dx, t.weight});
    return result;
}

FilterSet bilinear_filters() {
    FilterSet f;
    f.green_at_red_or_blue = {{-1, 0, 0.25f}, {1, 0, 0.25f}, {0, -1, 0.25f}, {0, 1, 0.25f}};
    f.along_row = {{-1, 0, 0.5f}, {1, 0, 0.5f}};
    f.along_column = transposed(f.along_row);
    f.diagonal = {{-1, -1, 0.25f}, {1, -1, 0.25f}, {-1, 1, 0.25f}, {1, 1, 0.25f}};
    return f;
}

// The paper's filters, in eighths: each is the bilinear estimate plus a
// multiple of a discrete Laplacian of the color the site measured, which
// restores the high frequencies the colors share.
FilterSet malvar_filters() {
    auto eighths = [](std::initializer_list<Tap> taps) {
        Filter f;
        for (Tap t : taps) f.push_back({t.dx, t.dy, t.weight / 8.0f});
        return f;
    };
    FilterSet f;
    f.green_at_red_or_blue = eighths({{0, 0, 4},
                                      {-1, 0, 2},
                                      {1, 0, 2},
                                      {0, -1, 2},
                                      {0, 1, 2},
                                      {-2, 0, -1},
                                      {2, 0, -1},
                                      {0, -2, -1},
                                      {0, 2, -1}});
    f.along_row = eighths({{0, 0, 5},
                           {-1, 0, 4},
                           {1, 0, 4},
                           {-2, 0, -1},
                           {2, 0, -1},
                           {-1, -1, -1},
                           {1, -1, -1},
                           {-1, 1, -1},
                           {1, 1, -1},
                           {0, -2, 0.5f},
                           {0, 2, 0.5f}});
    f.along_column = transposed(f.along_row);
    f.diagonal = eighths({{0, 0, 6},
                          {-1, -1, 2},
                          {1, -1, 2},
                          {-1, 1, 2},
                          {1, 1, 2},
                          {-2, 0, -1.5f},
                          {2, 0, -1.5f},
                          {0, -2, -1.5f},
                          {0, 2, -1.5f}});
    return f;
}

int floor_div2(int v) {
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

// The filter that gives color `wanted` at site `site` of the quad.
const Filter &choose_filter(const FilterSet &filters, const std::array<Color, 4> &colors, int site, Color wanted) {
    const Color measured = colors[site];
    if (wanted == kGreen) return filters.green_at_red_or_blue;
    if (measured != kGreen) return filters.diagonal;
    const int row_neighbor = site ^ 1;  // the site beside this one in the quad
    return colors[row_neighbor] == wanted ? filters.along_row : filters.along_column;
}

Func demosaic(const Func &mosaic, BayerPattern pattern, const FilterSet &filters, const std::string &name,
              const std::string &op) {
    require_dimensions(mosaic, 2, op);
    const std::array<Color, 4> colors = site_colors(pattern);
    Func planes = deinterleave_bayer(mosaic, name + "_deinterleaved");

    // Vars for the dimensions after (x, y), shared by all three Funcs.
    std::vector<Var> rest;
    for (int d = 2; d < mosaic.dimensions(); ++d) rest.emplace_back(name + "_d" + std::to_string(d));
    auto args = [&](std::vector<Expr> leading) {
        leading.insert(leading.end(), rest.begin(), rest.end());
        return leading;
    };

    Var qx(name + "_qx"), qy(name + "_qy"), c(name + "_c"), q(name + "_q");
    // The mosaic at full-resolution offset (sx, sy) from the corner of quad (qx, qy).
    auto sample = [&](int sx, int sy) {
        const int site = (sx & 1) + 2 * (sy & 1);
        return Halide::cast<float>(planes(args({qx + floor_div2(sx), qy + floor_div2(sy), site})));
    };

    std::vector<Expr> per_site;
    for (int site = 0; site < 4; ++site) {
        const int px = site % 2, py = site / 2;
        std::vector<Expr> per_color;
        for (Color wanted : {kRed, kGreen, kBlue}) {
            if (colors[site] == wanted) {
                per_color.push_back(sample(px, py));
                continue;
            }
            Expr sum;
            for (const Tap &t : choose_filter(filters, colors, site, wanted)) {
                Expr term = t.weight * sample(px + t.dx, py + t.dy);
                sum = sum.defined() ? sum + term : term;
            }
            per_color.push_back(sum);
        }
        per_site.push_back(Halide::mux(c, per_color));
    }
    Func quads(name + "_quads");
    quads(args({qx, qy, c, q})) = Halide::mux(q, per_site);

    Var x(name + "_x"), y(name + "_y");
    Func out(name);
    out(args({x, y, c})) = quads(args({x / 2, y / 2, c, x % 2 + 2 * (y % 2)}));
    return out;
}

}  // namespace

Func deinterleave_bayer(const Func &mosaic, const std::string &name) {
    require_dimensions(mosaic, 2, "deinterleave_bayer");
    std::vector<Var> v = pure_vars(mosaic, name);
    Var q(name + "_q");
    std::vector<Expr> lhs = as_exprs(v), rhs = as_exprs(v);
    lhs.insert(lhs.begin() + 2, q);
    rhs[0] = 2 * v[0] + q % 2;
    rhs[1] = 2 * v[1] + q / 2;
    Func planes(name);
    planes(lhs) = mosaic(rhs);
    return planes;
}

Func demosaic_bilinear(const Func &mosaic, BayerPattern pattern, const std::string &name) {
    return demosaic(mosaic, pattern, bilinear_filters(), name, "demosaic_bilinear '" + name + "'");
}

Func demosaic_malvar(const Func &mosaic, BayerPattern pattern, const std::string &name) {
    return demosaic(mosaic, pattern, malvar_filters(), name, "demosaic_malvar '" + name + "'");
}

}  // namespace strata::dsl::image
