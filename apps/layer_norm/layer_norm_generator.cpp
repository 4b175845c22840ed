// layer_norm: transformer layer normalization of a float32 activation matrix
// (hidden, tokens) over the hidden axis, with learned gamma and beta and
// epsilon 1e-5 (PyTorch's LayerNorm defaults; two-pass variance).
//
// Stages: ln_sum → ln_mean → ln_centered (inlined) → ln_sq_sum →
// ln_inv_std → output = centered · inv_std · gamma + beta. Estimates: hidden
// 1024 (BERT-large / GPT-2 medium) × 8192 tokens. The hidden size is the
// input's width.
#include "Halide.h"
#include "RowReductionSchedule.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/nn/LayerNorm.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class LayerNorm : public Generator<LayerNorm> {
public:
    GeneratorParam<float> epsilon{"epsilon", 1e-5f};

    Input<Buffer<float>> input{"input", 2};    // (hidden, tokens)
    Input<Buffer<float>> gamma{"gamma", 1};    // (hidden)
    Input<Buffer<float>> beta{"beta", 1};      // (hidden)
    Output<Buffer<float>> output{"output", 2};  // (hidden, tokens)

    void generate() {
        Func ln = nn::layer_norm(input, gamma, beta, input.dim(0).extent(), epsilon, "ln");
        output(f, t) = ln(f, t);

        const int hidden = 1024, tokens = 8192;
        strata::dsl::estimate_extents(input, {hidden, tokens});
        strata::dsl::estimate_extents(gamma, {hidden});
        strata::dsl::estimate_extents(beta, {hidden});
        strata::dsl::estimate_extents(output, {hidden, tokens});

        if (!using_autoscheduler()) schedule_manually(ln);
    }

private:
    // One kernel; a block of 32 × 8 threads owns 8 tokens, a warp per token.
    // Both reductions (the sum, then the centered sum of squares) are
    // parallelized by rfactor: each lane reduces a strided slice of the row
    // (coalesced) into a partial in shared memory, one thread per token folds
    // the 32 partials and derives the mean or 1/std, and the warp writes the
    // normalized row. The row is re-read from L1/L2 by each of the 3 passes.
    void schedule_manually(Func ln) {
        Var to("to"), ti("ti"), fo("fo"), fi("fi");
        output.compute_root()
            .split(t, to, ti, kTokensPerBlock)
            .split(f, fo, fi, kLanes)
            .reorder(fo, fi, ti, to)
            .gpu_blocks(to)
            .gpu_threads(fi, ti);
        for (const char *stage : {"ln_sum", "ln_sq_sum"}) {
            strata::apps::parallelize_row_reduction(output, strata::dsl::find_stage(ln, stage), to, kLanes);
        }
        for (const char *stage : {"ln_mean", "ln_inv_std"}) {
            Func per_token = strata::dsl::find_stage(ln, stage);
            per_token.compute_at(output, to).gpu_threads(per_token.args()[0]);
        }
    }

    static constexpr int kLanes = 32;
    static constexpr int kTokensPerBlock = 8;
    Var f{"f"}, t{"t"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(LayerNorm, layer_norm)
