// Three small pipelines for the autotune tests (scripts/strata-autotune under
// PoCL): sized so that compiling and timing one schedule takes a second or
// two on a CPU, and shaped so that Strata's search has real choices — a
// separable blur (fusion, tiling), a pointwise chain with a downsample
// (inlining, resampling footprints) and a row reduction (reduction factoring).
// They stand in for "a user's generator": strata-autotune runs them as
// `BINARY:GENERATOR_NAME`.
#include "Halide.h"

namespace {

using namespace Halide;

class TinyBlur : public Generator<TinyBlur> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func blur_x("blur_x");
        blur_x(x, y) = (clamped(x - 1, y) + 2.f * clamped(x, y) + clamped(x + 1, y)) * 0.25f;
        output(x, y) = (blur_x(x, y - 1) + 2.f * blur_x(x, y) + blur_x(x, y + 1)) * 0.25f;
        input.set_estimates({{0, 192}, {0, 128}});
        output.set_estimates({{0, 192}, {0, 128}});
    }

private:
    Var x{"x"}, y{"y"};
};

class TinyChain : public Generator<TinyChain> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func scaled("scaled"), curved("curved");
        scaled(x, y) = input(x, y) * 1.5f + 0.25f;
        curved(x, y) = scaled(x, y) * scaled(x, y) / (1.f + scaled(x, y));
        output(x, y) = (curved(2 * x, 2 * y) + curved(2 * x + 1, 2 * y) + curved(2 * x, 2 * y + 1) +
                        curved(2 * x + 1, 2 * y + 1)) *
                       0.25f;
        input.set_estimates({{0, 256}, {0, 128}});
        output.set_estimates({{0, 128}, {0, 64}});
    }

private:
    Var x{"x"}, y{"y"};
};

class TinyRowSum : public Generator<TinyRowSum> {
public:
    Input<Buffer<float>> input{"input", 2};  // (columns, rows)
    Output<Buffer<float>> output{"output", 1};

    void generate() {
        RDom r(0, input.dim(0).extent());
        Func sum("row_sum");
        sum(y) = 0.f;
        sum(y) += input(r, y);
        output(y) = sum(y) / cast<float>(input.dim(0).extent());
        input.set_estimates({{0, 128}, {0, 256}});
        output.set_estimates({{0, 256}});
    }

private:
    Var y{"y"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(TinyBlur, tiny_blur)
HALIDE_REGISTER_GENERATOR(TinyChain, tiny_chain)
HALIDE_REGISTER_GENERATOR(TinyRowSum, tiny_row_sum)
