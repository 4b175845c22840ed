#include "strata/dsl/nn/Attention.h"

#include "strata/dsl/Require.h"
#include "strata/dsl/nn/Matmul.h"
#include "strata/dsl/nn/Softmax.h"

namespace strata::dsl::nn {

Halide::Func attention(const Halide::Func &q, const Halide::Func &k, const Halide::Func &v,
                       const Halide::Expr &head_dim, const Halide::Expr &kv_length, bool causal,
                       const std::string &name) {
    const std::string op = "attention '" + name + "'";
    for (const Halide::Func &f : {q, k, v}) {
        require(f.defined(), op + ": q, k and v must all be defined");
        require(f.dimensions() == 4, op + ": '" + f.name() + "' has " + std::to_string(f.dimensions()) +
                                         " dimensions; attention operands are (d, seq, heads, batch)");
    }
    require(head_dim.defined() && kv_length.defined(), op + ": the head dimension and the key count are needed");

    Halide::Func scores = batched_matmul(q, k, head_dim, name + "_scores", Transpose::B);  // (j, i, h, b)
    Halide::Var j(name + "_j"), i(name + "_i"), h(name + "_h"), b(name + "_b");
    Halide::Expr scaled = scores(j, i, h, b) * (1.0f / Halide::sqrt(Halide::cast<float>(head_dim)));
    Halide::Func logits(name + "_logits");
    logits(j, i, h, b) = causal ? Halide::select(j <= i, scaled, lowest_float()) : scaled;
    Halide::Func probs = softmax(logits, 0, kv_length, name + "_probs");
    return batched_matmul(probs, v, kv_length, name);  // (d, i, h, b)
}

}  // namespace strata::dsl::nn
