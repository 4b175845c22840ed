// stencil_chain: a chain of 3×3 stencils, each stage reading the previous
// one — the deepest producer-consumer chain in the suite, where fusing
// stages trades redundant halo work against memory traffic.
//
// Stages: stage_1 … stage_<stencils> (default 8), no boundary condition: each
// stage shrinks the valid region by one pixel, so the input is larger than
// the output. Estimates: a 1536×2560 output.
#include "Halide.h"
#include "stencil_chain_weights.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/Convolution.h"

#include <vector>

namespace {

using namespace Halide;

class StencilChain : public Generator<StencilChain> {
public:
    GeneratorParam<int> stencils{"stencils", 8, 1, 64};

    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        std::vector<Func> stages;
        Func previous = input;
        for (int i = 1; i <= stencils; ++i) {
            previous = strata::dsl::image::convolve3x3(previous, stencil_chain::stage_weights(i),
                                                       "stage_" + std::to_string(i));
            stages.push_back(previous);
        }
        output(x, y) = previous(x, y);

        strata::dsl::estimate_extents(output, {1536, 2560});
        const int halo = stencils;
        input.set_estimates({{-halo, 1536 + 2 * halo}, {-halo, 2560 + 2 * halo}});

        if (!using_autoscheduler()) schedule_manually(stages);
    }

private:
    // Pairs of stages per kernel: the odd stage of each pair is computed per
    // 32×8 tile (plus halo) in shared memory, the even one by the tile's
    // threads straight from it. Four kernels for eight stages.
    void schedule_manually(const std::vector<Func> &stages) {
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
        output.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8);
        const int n = int(stages.size());
        for (int i = n - 1; i >= 0; --i) {
            Func s = stages[i];
            Var sx = s.args()[0], sy = s.args()[1];
            const bool kernel_root = (n - 1 - i) % 2 == 0;
            if (i == n - 1) {
                continue;  // inlined into the output kernel's threads
            } else if (kernel_root) {
                s.compute_root().gpu_tile(sx, sy, xo, yo, xi, yi, 32, 8);
            } else {
                Func consumer = stages[i + 1];
                const bool consumer_is_output = i + 1 == n - 1;
                s.compute_at(consumer_is_output ? output : consumer, xo).gpu_threads(sx, sy);
            }
        }
    }

    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(StencilChain, stencil_chain)
