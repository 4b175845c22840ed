#include "strata/dsl/nn/Concat.h"

#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Func concat_channels(const std::vector<Halide::Func> &parts, const std::vector<Halide::Expr> &channels,
                             Layout layout, const std::string &name) {
    const std::string op = "concat_channels '" + name + "'";
    require(!parts.empty(), op + ": there is nothing to concatenate");
    require(parts.size() == channels.size(), op + ": " + std::to_string(parts.size()) + " parts but " +
                                                 std::to_string(channels.size()) + " channel counts");
    for (size_t p = 0; p < parts.size(); ++p) {
        require_feature_map(parts[p], op);
        require(channels[p].defined(), op + ": the channel count of part " + std::to_string(p) + " ('" +
                                           parts[p].name() + "') is needed");
    }
    std::vector<Halide::Var> v = layout_vars(layout, name);
    const Halide::Var x = v[width_dim(layout)], y = v[height_dim(layout)], c = v[channel_dim(layout)];
    const Halide::Var n = v[kBatchDim];

    // Built from the last part backwards: select(c < end_p, part p, later parts).
    std::vector<Halide::Expr> offsets{0};
    for (const Halide::Expr &count : channels) offsets.push_back(offsets.back() + count);
    const auto part_at = [&](size_t p) {
        const Halide::Expr local = Halide::clamp(c - offsets[p], 0, channels[p] - 1);
        return Halide::cast<float>(parts[p](layout_args(layout, x, y, local, n)));
    };
    Halide::Expr value = part_at(parts.size() - 1);
    for (size_t p = parts.size() - 1; p-- > 0;) value = Halide::select(c < offsets[p + 1], part_at(p), value);
    Halide::Func out(name);
    out(v) = value;
    return out;
}

}  // namespace strata::dsl::nn
