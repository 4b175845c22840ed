// FuncShape: small helpers shared by the operator builders for addressing a
// Func of any dimensionality — fresh pure Vars for it, and calls to it with
// some coordinates shifted or replaced — so that an image op written for
// (x, y) also works on (x, y, c) or (x, y, c, n).
//
// Example:
//   std::vector<Halide::Var> v = strata::dsl::pure_vars(input, "blur");
//   Halide::Expr left = strata::dsl::shifted(input, v, {-1, 0});
#pragma once

#include "Halide.h"

#include <string>
#include <vector>

namespace strata::dsl {

// One fresh Var per dimension of `f`, named after `prefix` ("x", "y", "c", "n" ...).
std::vector<Halide::Var> pure_vars(const Halide::Func &f, const std::string &prefix);

// `f` at `vars`, with offsets[d] added to dimension d (missing offsets are 0).
Halide::Expr shifted(const Halide::Func &f, const std::vector<Halide::Var> &vars, const std::vector<int> &offsets);

// `f` at `vars`, with dimension `dim` replaced by `coordinate`.
Halide::Expr replaced(const Halide::Func &f, const std::vector<Halide::Var> &vars, int dim,
                      const Halide::Expr &coordinate);

// The vars as call arguments.
std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var> &vars);

// Throws a Halide CompileError naming `op` and `f` unless f has at least `dims` dimensions.
void require_dimensions(const Halide::Func &f, int dims, const std::string &op);

}  // namespace strata::dsl
