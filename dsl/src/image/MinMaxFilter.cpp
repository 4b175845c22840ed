#include "strata/dsl/image/MinMaxFilter.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::Var;

namespace {

enum class Extremum { Max, Min };

Expr combine(Extremum which, const Expr &a, const Expr &b) {
    return which == Extremum::Max ? Halide::max(a, b) : Halide::min(a, b);
}

const char *op_name(Extremum which) {
    return which == Extremum::Max ? "max_filter_1d" : "min_filter_1d";
}

// `args` with dimension `dim` split into (offset, block): the offset takes
// the dimension's place and the block index follows it.
std::vector<Expr> in_block(std::vector<Expr> args, int dim, const Expr &offset, const Expr &block) {
    args[dim] = offset;
    args.insert(args.begin() + dim + 1, block);
    return args;
}

Func direct_window(const Func &input, int dim, int radius, Extremum which, const std::string &name) {
    Func out(name);
    auto v = pure_vars(input, name);
    const Var i = v[dim];
    out(v) = replaced(input, v, dim, i - radius);
    RDom r(-radius + 1, 2 * radius, name + "_r");
    out(v) = combine(which, out(v), replaced(input, v, dim, i + r));
    return out;
}

// van Herk / Gil-Werman: see the header.
Func running_window(const Func &input, int dim, int radius, Extremum which, const std::string &name) {
    const int window = 2 * radius + 1;
    auto v = pure_vars(input, name);
    const std::vector<Expr> pure = as_exprs(v);
    Var offset(name + "_offset"), block(name + "_block");
    auto input_at = [&](const Expr &o, const Expr &b) {
        std::vector<Expr> args = pure;
        args[dim] = b * window + o;
        return input(args);
    };

    // prefix(…, o, b, …): the extremum of block b's elements 0 … o.
    Func prefix(name + "_prefix");
    prefix(in_block(pure, dim, offset, block)) = input_at(offset, block);
    RDom forward(1, window - 1, name + "_forward");
    prefix(in_block(pure, dim, forward, block)) =
        combine(which, prefix(in_block(pure, dim, forward - 1, block)), input_at(forward, block));

    // suffix(…, o, b, …): the extremum of block b's elements o … window - 1.
    Func suffix(name + "_suffix");
    suffix(in_block(pure, dim, offset, block)) = input_at(offset, block);
    RDom backward(0, window - 1, name + "_backward");
    const Expr o = window - 2 - backward;
    suffix(in_block(pure, dim, o, block)) =
        combine(which, suffix(in_block(pure, dim, o + 1, block)), input_at(o, block));

    // The window [i - radius, i + radius] is one block's tail followed by the
    // next block's head (or exactly one block, which the suffix alone covers).
    // Halide's / and % round toward negative infinity, so this holds below 0 too.
    const Expr first = v[dim] - radius, last = v[dim] + radius;
    Func out(name);
    out(v) = combine(which, suffix(in_block(pure, dim, first % window, first / window)),
                     prefix(in_block(pure, dim, last % window, last / window)));
    return out;
}

Func window_filter(const Func &input, int dim, int radius, Extremum which, const std::string &name,
                   WindowMethod method) {
    require(dim >= 0, std::string(op_name(which)) + " '" + name + "': dimension " + std::to_string(dim) +
                          " is negative");
    require_dimensions(input, dim + 1, op_name(which));
    require(input.outputs() == 1, std::string(op_name(which)) + " '" + name + "': Func '" + input.name() +
                                      "' has " + std::to_string(input.outputs()) + " outputs; one is needed");
    require(radius >= 0, std::string(op_name(which)) + " '" + name + "': radius must be non-negative, got " +
                             std::to_string(radius));
    if (radius == 0) {
        Func out(name);
        auto v = pure_vars(input, name);
        out(v) = input(v);
        return out;
    }
    return method == WindowMethod::Direct ? direct_window(input, dim, radius, which, name)
                                          : running_window(input, dim, radius, which, name);
}

}  // namespace

Func max_filter_1d(const Func &input, int dim, int radius, const std::string &name, WindowMethod method) {
    return window_filter(input, dim, radius, Extremum::Max, name, method);
}

Func min_filter_1d(const Func &input, int dim, int radius, const std::string &name, WindowMethod method) {
    return window_filter(input, dim, radius, Extremum::Min, name, method);
}

Func max_filter(const Func &input, int radius, const std::string &name, WindowMethod method) {
    require_dimensions(input, 2, "max_filter");
    return max_filter_1d(max_filter_1d(input, 1, radius, name + "_y", method), 0, radius, name, method);
}

Func min_filter(const Func &input, int radius, const std::string &name, WindowMethod method) {
    require_dimensions(input, 2, "min_filter");
    return min_filter_1d(min_filter_1d(input, 1, radius, name + "_y", method), 0, radius, name, method);
}

}  // namespace strata::dsl::image
