#include "strata/dsl/image/RecursiveFilter.h"

#include "strata/dsl/FuncShape.h"
#include "strata/dsl/Require.h"

namespace strata::dsl::image {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;

namespace {

struct Passes {
    bool causal;
    bool anticausal;
};

void check_arguments(const Func &input, int dim, const Expr &alpha, const Expr &extent, const std::string &op,
                     const std::string &name) {
    const std::string where = op + " '" + name + "'";
    require(dim >= 0, where + ": dimension " + std::to_string(dim) + " is negative");
    require_dimensions(input, dim + 1, op);
    require(input.outputs() == 1, where + ": Func '" + input.name() + "' has " + std::to_string(input.outputs()) +
                                      " outputs; one is needed");
    require(alpha.defined() && extent.defined(), where + ": alpha and extent must be defined");
    if (const auto a = Halide::Internal::as_const_float(alpha)) {
        require(*a > 0 && *a <= 1, where + ": alpha must be in (0, 1], got " + std::to_string(*a));
    }
    if (const auto e = Halide::Internal::as_const_int(extent)) {
        require(*e >= 1, where + ": the scanned extent along dimension " + std::to_string(dim) +
                             " must be positive, got " + std::to_string(*e));
    }
}

Func recursive_filter(const Func &input, int dim, const Expr &alpha_in, const Expr &min, const Expr &extent,
                      Passes passes, const std::string &op, const std::string &name) {
    check_arguments(input, dim, alpha_in, extent, op, name);
    const Expr alpha = Halide::cast<float>(alpha_in);
    const Expr keep = 1.0f - alpha;
    auto v = pure_vars(input, name);
    auto in = [&](const Expr &i) { return Halide::cast<float>(replaced(input, v, dim, i)); };

    Func out(name);
    auto at = [&](const Expr &i) { return replaced(out, v, dim, i); };
    std::vector<Expr> lhs = as_exprs(v);
    auto define_at = [&](const Expr &i, const Expr &value) {
        lhs[dim] = i;
        out(lhs) = value;
    };

    out(v) = Halide::undef<float>();
    const Expr last = min + extent - 1;
    // The scan starts at the edge it leaves from.
    define_at(passes.causal ? min : last, in(passes.causal ? min : last));
    if (passes.causal) {
        RDom r(min + 1, extent - 1, name + "_forward");
        define_at(r, keep * at(r - 1) + alpha * in(r));
    }
    if (passes.anticausal) {
        // Walks last - 1 … min; a symmetric filter smooths its own causal result.
        RDom r(0, extent - 1, name + "_backward");
        const Expr i = last - 1 - r;
        define_at(i, keep * at(i + 1) + alpha * (passes.causal ? at(i) : in(i)));
    }
    return out;
}

}  // namespace

Func causal_recursive_filter(const Func &input, int dim, const Expr &alpha, const Expr &min, const Expr &extent,
                             const std::string &name) {
    return recursive_filter(input, dim, alpha, min, extent, {true, false}, "causal_recursive_filter", name);
}

Func anticausal_recursive_filter(const Func &input, int dim, const Expr &alpha, const Expr &min, const Expr &extent,
                                 const std::string &name) {
    return recursive_filter(input, dim, alpha, min, extent, {false, true}, "anticausal_recursive_filter", name);
}

Func symmetric_recursive_filter(const Func &input, int dim, const Expr &alpha, const Expr &min, const Expr &extent,
                                const std::string &name) {
    return recursive_filter(input, dim, alpha, min, extent, {true, true}, "symmetric_recursive_filter", name);
}

}  // namespace strata::dsl::image
