#include "strata/dsl/image/Histogram.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;

namespace {

void require_bins(int bins, const std::string &op, const std::string &name) {
    require(bins >= 1, op + " '" + name + "': needs at least one bin, got " + std::to_string(bins));
}

void require_integer_bins(const Func &bin_index, const std::string &op, const std::string &name) {
    require(bin_index.outputs() == 1, op + " '" + name + "': Func '" + bin_index.name() + "' has " +
                                          std::to_string(bin_index.outputs()) + " outputs; one is needed");
    const Halide::Type t = bin_index.types()[0];
    require(t.is_int() || t.is_uint(), op + " '" + name + "': the bin indices of Func '" + bin_index.name() +
                                           "' must be integers; quantize floating-point values first");
}

// bin_index(args), clamped into [0, bins): the clamp is what bounds the data-dependent accesses.
Expr clamped_bin(const Func &bin_index, const std::vector<Expr> &args, int bins) {
    return Halide::clamp(Halide::cast<int>(bin_index(args)), 0, bins - 1);
}

}  // namespace

Func quantize(const Func &values, float lo, float hi, int bins, const std::string &name) {
    require_dimensions(values, 1, "quantize");
    require_bins(bins, "quantize", name);
    require(hi > lo, "quantize '" + name + "': the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         ") is empty");
    auto v = pure_vars(values, name);
    const float scale = float(bins) / (hi - lo);
    Func out(name);
    out(v) = Halide::clamp(Halide::cast<int>(Halide::floor((Halide::cast<float>(values(v)) - lo) * scale)), 0,
                           bins - 1);
    return out;
}

Func histogram(const Func &bin_index, int bins, const Halide::Region &xy, const std::string &name) {
    require_dimensions(bin_index, 2, "histogram");
    require_bins(bins, "histogram", name);
    require_integer_bins(bin_index, "histogram", name);
    require(xy.size() == 2, "histogram '" + name + "': the region must give (min, extent) for x and y, got " +
                                std::to_string(xy.size()) + " ranges");
    // hist(b, rest…) for bin_index(x, y, rest…).
    std::vector<Halide::Var> vars = pure_vars(bin_index, name);
    vars.erase(vars.begin(), vars.begin() + 2);
    Halide::Var bin(name + "_bin");
    std::vector<Expr> hist_args = {bin};
    for (const Halide::Var &v : vars) hist_args.push_back(v);

    Func hist(name);
    hist(hist_args) = 0;
    RDom r(xy, name + "_r");
    std::vector<Expr> pixel = {r.x, r.y};
    for (const Halide::Var &v : vars) pixel.push_back(v);
    hist_args[0] = clamped_bin(bin_index, pixel, bins);
    hist(hist_args) += 1;
    return hist;
}

Func cumulative(const Func &hist, int bins, const std::string &name) {
    require_dimensions(hist, 1, "cumulative");
    require_bins(bins, "cumulative", name);
    require(hist.outputs() == 1, "cumulative '" + name + "': Func '" + hist.name() + "' has " +
                                     std::to_string(hist.outputs()) + " outputs; one is needed");
    auto v = pure_vars(hist, name);
    Func cdf(name);
    cdf(v) = hist(v);
    if (bins > 1) {
        RDom r(1, bins - 1, name + "_r");
        std::vector<Expr> at = as_exprs(v), before = as_exprs(v);
        at[0] = r;
        before[0] = r - 1;
        cdf(at) += cdf(before);
    }
    return cdf;
}

Func equalize(const Func &bin_index, const Func &cdf, int bins, const Expr &total, const std::string &name) {
    require_dimensions(bin_index, 2, "equalize");
    require_bins(bins, "equalize", name);
    require_integer_bins(bin_index, "equalize", name);
    require(cdf.defined() && cdf.dimensions() == bin_index.dimensions() - 1,
            "equalize '" + name + "': the cdf '" + cdf.name() + "' must have one dimension less than the bin index '" +
                bin_index.name() + "' (the bin replaces x and y)");
    require(total.defined(), "equalize '" + name + "': the total count is undefined");
    auto v = pure_vars(bin_index, name);
    std::vector<Expr> at = as_exprs(v);
    at.erase(at.begin(), at.begin() + 2);
    at.insert(at.begin(), clamped_bin(bin_index, as_exprs(v), bins));
    Func out(name);
    out(v) = Halide::cast<float>(cdf(at)) * (float(bins - 1) / Halide::cast<float>(total));
    return out;
}

Func histogram_equalize(const Func &bin_index, int bins, const Halide::Region &xy, const std::string &name) {
    Func hist = histogram(bin_index, bins, xy, name + "_hist");
    Func cdf = cumulative(hist, bins, name + "_cdf");
    return equalize(bin_index, cdf, bins, xy[0].extent * xy[1].extent, name);
}

}  // namespace strata::dsl::image
