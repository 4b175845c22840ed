// conv_layer: one convolutional layer, out = relu(conv3x3(input, weights) + bias),
// stride 1, zero padding 1, NCHW, float32 — the layer benchmarked by Halide's
// conv_layer app and by the GPU autoscheduling papers that use it.
//
// Stages: conv_padded (inlined zero padding) → conv (zero + update over
// 3×3×C_in) → biased → output (ReLU). Estimates (the literature's sizes):
// batch 5, C_in = C_out = 128, 100 × 80 pixels. Channel counts come from the
// buffers: C_in from input.dim(2), C_out from the output's extent.
#include "ConvSchedule.h"
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/nn/Activation.h"
#include "strata/dsl/nn/Bias.h"
#include "strata/dsl/nn/Conv2d.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class ConvLayer : public Generator<ConvLayer> {
public:
    Input<Buffer<float>> input{"input", 4};      // (w, h, c_in, n)
    Input<Buffer<float>> weights{"weights", 4};  // (3, 3, c_in, c_out)
    Input<Buffer<float>> bias{"bias", 1};        // (c_out)
    Output<Buffer<float>> output{"output", 4};   // (w, h, c_out, n)

    void generate() {
        const nn::FeatureExtents in{input.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent()};
        Func conv = nn::conv2d(input, weights, in, nn::Window2d{3, 1, 1, 1}, nn::Layout::NCHW, "conv");
        Func biased = nn::bias_add(conv, bias, nn::Layout::NCHW, "biased");
        output(x, y, c, n) = nn::relu(biased(x, y, c, n));

        const int batch = 5, channels = 128, width = 100, height = 80;
        strata::dsl::estimate_extents(input, {width, height, channels, batch});
        strata::dsl::estimate_extents(weights, {3, 3, channels, channels});
        strata::dsl::estimate_extents(bias, {channels});
        strata::dsl::estimate_extents(output, {width, height, channels, batch});

        if (!using_autoscheduler()) schedule_manually(conv);
    }

private:
    // Register blocking (ConvTile's default): a block computes a 32 (x) × 4 (y)
    // × 32 (c_out) output tile with 8 × 4 × 8 threads; each thread accumulates
    // a 4 (x) × 4 (c_out) sub-tile in registers over the whole C_in × 3 × 3
    // reduction, with the 3 × 3 taps unrolled so that each input channel costs
    // 18 input and 36 weight loads (through L1) for 144 FMAs. Bias and ReLU
    // are applied as the registers are stored.
    void schedule_manually(Func conv) {
        strata::apps::register_blocked_conv(output, conv, strata::apps::ConvTile{});
    }

    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ConvLayer, conv_layer)
