// softmax: the row softmax of a float32 matrix (features, rows), max-
// subtracted for stability — the normalization of attention scores and
// classifier logits.
//
// Stages: probs_max (max over features per row) → probs_exp (inlined
// exp(x - max)) → probs_sum (sum per row) → output = probs_exp / probs_sum.
// Estimates: 1024 features × 8192 rows (a 1024-wide attention or vocabulary
// slice over a batch of 8192 tokens). The feature count is the input's width.
#include "Halide.h"
#include "RowReductionSchedule.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/nn/Softmax.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class Softmax : public Generator<Softmax> {
public:
    Input<Buffer<float>> input{"input", 2};    // (features, rows)
    Output<Buffer<float>> output{"output", 2};  // (features, rows)

    void generate() {
        Func probs = nn::softmax(input, 0, input.dim(0).extent(), "probs");
        output(f, r) = probs(f, r);

        strata::dsl::estimate_extents(input, {1024, 8192});
        strata::dsl::estimate_extents(output, {1024, 8192});

        if (!using_autoscheduler()) {
            schedule_manually(strata::dsl::find_stage(probs, "probs_max"), strata::dsl::find_stage(probs, "probs_sum"));
        }
    }

private:
    // One kernel; a block of 32 × 8 threads owns 8 rows, a warp per row.
    // Each row reduction is parallelized by rfactor: the warp's 32 lanes
    // reduce strided slices of the row (coalesced) into 32 partials in
    // shared memory, and one thread per row folds them; then the max-
    // subtracted exponentials are summed the same way and the warp writes
    // the normalized row. Only the row statistics (a few hundred bytes) live
    // in shared memory; the row is re-read from L1/L2 by each pass.
    void schedule_manually(Func row_max, Func row_sum) {
        Var ro("ro"), ri("ri"), fo("fo"), fi("fi");
        output.compute_root()
            .split(r, ro, ri, kRowsPerBlock)
            .split(f, fo, fi, kLanes)
            .reorder(fo, fi, ri, ro)
            .gpu_blocks(ro)
            .gpu_threads(fi, ri);
        for (Func stat : {row_max, row_sum}) strata::apps::parallelize_row_reduction(output, stat, ro, kLanes);
    }

    static constexpr int kLanes = 32;
    static constexpr int kRowsPerBlock = 8;
    Var f{"f"}, r{"r"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Softmax, softmax)
