// Activation: elementwise nonlinearities, float32, on tensors of any shape.
// Each comes as an Expr function (to fuse into a definition by hand) and as
// a Func builder returning a Func named `name`.
//
// GELU has two forms: Gelu::Erf is the exact x/2 (1 + erf(x/√2)) (Halide's
// float32 erf, accurate to a few ulp), Gelu::Tanh the approximation
// x/2 (1 + tanh(√(2/π) (x + 0.044715 x³))) used by GPT-2 and BERT
// implementations (|error| < 5e-4 against the exact form).
//
// Example:
//   Halide::Func act = strata::dsl::nn::relu(biased, "act");
//   output(x, y) = strata::dsl::nn::gelu(dense(x, y), strata::dsl::nn::Gelu::Tanh);
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

enum class Gelu { Erf, Tanh };

Halide::Expr relu(const Halide::Expr &x);
Halide::Expr gelu(const Halide::Expr &x, Gelu form = Gelu::Erf);
Halide::Expr sigmoid(const Halide::Expr &x);

Halide::Func relu(const Halide::Func &input, const std::string &name = "relu");
Halide::Func gelu(const Halide::Func &input, Gelu form, const std::string &name = "gelu");
Halide::Func sigmoid(const Halide::Func &input, const std::string &name = "sigmoid");

}  // namespace strata::dsl::nn
