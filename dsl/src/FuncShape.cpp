#include "strata/dsl/FuncShape.h"

#include "strata/dsl/Require.h"

namespace strata::dsl {

std::vector<Halide::Var> pure_vars(const Halide::Func &f, const std::string &prefix) {
    static const char *const kNames[] = {"x", "y", "c", "n"};
    std::vector<Halide::Var> vars;
    for (int d = 0; d < f.dimensions(); ++d) {
        std::string name = d < 4 ? kNames[d] : "d" + std::to_string(d);
        vars.emplace_back(prefix + "_" + name);
    }
    return vars;
}

std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var> &vars) {
    return std::vector<Halide::Expr>(vars.begin(), vars.end());
}

Halide::Expr shifted(const Halide::Func &f, const std::vector<Halide::Var> &vars, const std::vector<int> &offsets) {
    std::vector<Halide::Expr> args = as_exprs(vars);
    for (size_t d = 0; d < offsets.size() && d < args.size(); ++d) {
        if (offsets[d] != 0) args[d] = args[d] + offsets[d];
    }
    return f(args);
}

Halide::Expr replaced(const Halide::Func &f, const std::vector<Halide::Var> &vars, int dim,
                      const Halide::Expr &coordinate) {
    std::vector<Halide::Expr> args = as_exprs(vars);
    args[dim] = coordinate;
    return f(args);
}

void require_dimensions(const Halide::Func &f, int dims, const std::string &op) {
    require(f.defined(), op + ": the input Func is undefined");
    require(f.dimensions() >= dims, op + ": Func '" + f.name() + "' has " + std::to_string(f.dimensions()) +
                                        " dimensions; at least " + std::to_string(dims) + " are needed");
}

}  // namespace strata::dsl
