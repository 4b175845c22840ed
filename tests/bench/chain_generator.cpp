// chain: a synthetic pipeline of N stencil stages, each a 3-tap blur of the
// one before along x or y in turn, over a clamped image — the pipeline the
// search-scaling benchmark (scripts/bench-scaling) grows to hundreds of
// stages to see how search time grows with the number of Funcs.
#include "Halide.h"

namespace {

using namespace Halide;

class Chain : public Generator<Chain> {
public:
    GeneratorParam<int> stages{"stages", 25, 1, 4096};
    GeneratorParam<int> size{"size", 2048, 16, 1 << 16};

    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate() {
        Func previous = BoundaryConditions::repeat_edge(input);
        for (int i = 0; i < stages; ++i) {
            Func stage("stage_" + std::to_string(i));
            const Expr a = i % 2 == 0 ? previous(x - 1, y) : previous(x, y - 1);
            const Expr b = i % 2 == 0 ? previous(x + 1, y) : previous(x, y + 1);
            stage(x, y) = (a + 2 * previous(x, y) + b) * 0.25f;
            previous = stage;
        }
        output(x, y) = previous(x, y);
        input.set_estimates({{0, size}, {0, size}});
        output.set_estimates({{0, size}, {0, size}});
    }

private:
    Var x{"x"}, y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Chain, chain)
