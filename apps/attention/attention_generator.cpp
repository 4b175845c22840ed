// attention: one layer of scaled dot-product attention, softmax(Q Kᵀ/√d) V,
// for every head and batch, with a causal mask by default (decoder
// self-attention; `causal=false` gives the encoder form). float32.
//
// Stages: att_scores (Q Kᵀ, update over d) → att_logits (scale + mask) →
// att_probs_max, att_probs_sum (row statistics over the keys) → att_probs →
// att (probs · V, update over the keys) → output. Shapes (innermost first)
// q, k, v, output: (head dim, seq, heads, batch). Estimates: batch 4, 8
// heads, seq 512, head dim 64 (a BERT-base-sized layer). The head dim and
// the key count come from the buffers.
#include "Halide.h"
#include "RowReductionSchedule.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/nn/Attention.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class Attention : public Generator<Attention> {
public:
    GeneratorParam<bool> causal{"causal", true};

    Input<Buffer<float>> q{"q", 4};            // (d, seq, heads, batch)
    Input<Buffer<float>> k{"k", 4};            // (d, seq, heads, batch)
    Input<Buffer<float>> v{"v", 4};            // (d, seq, heads, batch)
    Output<Buffer<float>> output{"output", 4};  // (d, seq, heads, batch)

    void generate() {
        Func att = nn::attention(q, k, v, q.dim(0).extent(), k.dim(1).extent(), causal, "att");
        output(d, i, h, b) = att(d, i, h, b);

        const std::vector<int> shape = {64, 512, 8, 4};
        for (auto *io : {&q, &k, &v}) strata::dsl::estimate_extents(*io, shape);
        strata::dsl::estimate_extents(output, shape);

        if (!using_autoscheduler()) schedule_manually(att);
    }

private:
    // Three kernels, each over blocks × (heads · batch):
    //  1. logits: Q Kᵀ as a register-blocked matmul — a block computes a 64
    //     (keys) × 64 (queries) tile with 16 × 16 threads, each accumulating
    //     4 × 4 scores over d in registers, scaled and masked on the way out.
    //  2. probs: the row softmax, a warp per query row and 8 rows per block,
    //     with both statistics rfactored across the warp's lanes through
    //     shared memory (as in the softmax app).
    //  3. output: probs · V, register-blocked the same way: a 64 (d) × 64
    //     (queries) tile per block, 4 × 4 per thread, over the keys.
    void schedule_manually(Func att) {
        Func scores = strata::dsl::find_stage(att, "att_scores");
        Func logits = strata::dsl::find_stage(att, "att_logits");
        Func probs = strata::dsl::find_stage(att, "att_probs");

        register_blocked(logits, scores);
        register_blocked(output, att);

        const std::vector<Var> p = probs.args();  // (j, i, h, b)
        Var io("io"), ii("ii"), jo("jo"), ji("ji"), hb("hb");
        probs.compute_root()
            .split(p[1], io, ii, kRowsPerBlock)
            .split(p[0], jo, ji, kLanes)
            .reorder(jo, ji, ii, io, p[2], p[3])
            .fuse(p[2], p[3], hb)
            .gpu_blocks(io, hb)
            .gpu_threads(ji, ii);
        for (const char *stat : {"att_probs_max", "att_probs_sum"}) {
            strata::apps::parallelize_row_reduction(probs, strata::dsl::find_stage(att, stat), io, kLanes);
        }
    }

    // consumer(n, m, h, b) stored from the 4 × 4 register tiles of product,
    // a zero-initialized matmul accumulated in place over its one RVar.
    void register_blocked(Func consumer, Func product) {
        const std::vector<Var> c = consumer.args();
        Var no("no"), ni("ni"), nt("nt"), nr("nr"), mo("mo"), mi("mi"), mt("mt"), mr("mr"), hb("hb");
        consumer.compute_root()
            .split(c[0], no, ni, kTile)
            .split(ni, nt, nr, kRegisters)
            .split(c[1], mo, mi, kTile)
            .split(mi, mt, mr, kRegisters)
            .reorder(nr, mr, nt, mt, no, mo, c[2], c[3])
            .fuse(c[2], c[3], hb)
            .gpu_blocks(no, mo, hb)
            .gpu_threads(nt, mt)
            .unroll(nr)
            .unroll(mr);
        const std::vector<Var> p = product.args();
        product.compute_at(consumer, nt).unroll(p[0]).unroll(p[1]);
        product.update()
            .reorder(p[0], p[1], p[2], p[3], product.rvars(0)[0])
            .unroll(p[0])
            .unroll(p[1]);
    }

    static constexpr int kTile = 64;
    static constexpr int kRegisters = 4;
    static constexpr int kLanes = 32;
    static constexpr int kRowsPerBlock = 8;
    Var d{"d"}, i{"i"}, h{"h"}, b{"b"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Attention, attention)
