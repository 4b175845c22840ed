// Attention: scaled dot-product attention (Vaswani et al. 2017, eq. 1),
//
//   out = softmax(Q Kᵀ / sqrt(d)) V,
//
// per head and batch, optionally causal (query i attends to keys j <= i, the
// decoder self-attention mask). Shapes, innermost first: q is
// Func(d, seq_q, heads, batch); k and v are Func(d, seq_kv, heads, batch);
// out is Func(d, seq_q, heads, batch). Stages:
//   name + "_scores"  Q Kᵀ: zero, then an update over the RDom name + "_scores_k" (d)
//   name + "_logits"  scores / sqrt(d), masked to the lowest float (pure)
//   name + "_probs"   softmax over the keys (with its _max, _exp, _sum stages)
//   name              probs V: zero, then an update over the RDom name + "_k" (seq_kv)
//
// Example:
//   Halide::Func att = strata::dsl::nn::attention(q, k, v, q_in.dim(0).extent(), k_in.dim(1).extent(),
//                                                 /*causal=*/true, "att");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::dsl::nn {

Halide::Func attention(const Halide::Func &q, const Halide::Func &k, const Halide::Func &v,
                       const Halide::Expr &head_dim, const Halide::Expr &kv_length, bool causal,
                       const std::string &name = "attention");

}  // namespace strata::dsl::nn
