// resnet_block: the ResNet basic block (He et al. 2016, Fig. 2 left) with an
// identity shortcut, at inference, NCHW, float32:
//   mid    = relu(bn1(conv3x3(input, conv1_weights)))
//   output = relu(bn2(conv3x3(mid, conv2_weights)) + input)
// Both convolutions are 3×3, stride 1, zero padding 1, C → C channels, no
// bias (the batch norms carry it); the batch norms use running statistics,
// epsilon 1e-5.
//
// Stages: conv1_padded (inlined) → conv1 → bn1 → mid → conv2_padded
// (inlined) → conv2 → bn2 → residual → output. Estimates: ResNet-18/34's
// conv2_x stage, batch 4, 64 channels, 56 × 56. The channel count comes from
// the input buffer.
#include "ConvSchedule.h"
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/nn/Activation.h"
#include "strata/dsl/nn/BatchNorm.h"
#include "strata/dsl/nn/Conv2d.h"
#include "strata/dsl/nn/Residual.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class ResnetBlock : public Generator<ResnetBlock> {
public:
    Input<Buffer<float>> input{"input", 4};                  // (w, h, c, n)
    Input<Buffer<float>> conv1_weights{"conv1_weights", 4};  // (3, 3, c, c)
    Input<Buffer<float>> bn1_mean{"bn1_mean", 1};            // (c) each
    Input<Buffer<float>> bn1_variance{"bn1_variance", 1};
    Input<Buffer<float>> bn1_gamma{"bn1_gamma", 1};
    Input<Buffer<float>> bn1_beta{"bn1_beta", 1};
    Input<Buffer<float>> conv2_weights{"conv2_weights", 4};  // (3, 3, c, c)
    Input<Buffer<float>> bn2_mean{"bn2_mean", 1};
    Input<Buffer<float>> bn2_variance{"bn2_variance", 1};
    Input<Buffer<float>> bn2_gamma{"bn2_gamma", 1};
    Input<Buffer<float>> bn2_beta{"bn2_beta", 1};
    Output<Buffer<float>> output{"output", 4};  // (w, h, c, n)

    void generate() {
        const nn::Layout nchw = nn::Layout::NCHW;
        const nn::Window2d same3x3{3, 1, 1, 1};
        const float epsilon = 1e-5f;
        const nn::FeatureExtents in{input.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent()};

        Func conv1 = nn::conv2d(input, conv1_weights, in, same3x3, nchw, "conv1");
        Func bn1 = nn::batch_norm(conv1, bn1_mean, bn1_variance, bn1_gamma, bn1_beta, epsilon, nchw, "bn1");
        Func mid = nn::relu(bn1, "mid");
        Func conv2 = nn::conv2d(mid, conv2_weights, in, same3x3, nchw, "conv2");
        Func bn2 = nn::batch_norm(conv2, bn2_mean, bn2_variance, bn2_gamma, bn2_beta, epsilon, nchw, "bn2");
        Func residual = nn::residual_add(bn2, input, "residual");
        output(x, y, c, n) = nn::relu(residual(x, y, c, n));

        const int batch = 4, channels = 64, width = 56, height = 56;
        strata::dsl::estimate_extents(input, {width, height, channels, batch});
        strata::dsl::estimate_extents(output, {width, height, channels, batch});
        for (auto *weights : {&conv1_weights, &conv2_weights}) {
            strata::dsl::estimate_extents(*weights, {3, 3, channels, channels});
        }
        for (auto *param : {&bn1_mean, &bn1_variance, &bn1_gamma, &bn1_beta, &bn2_mean, &bn2_variance, &bn2_gamma,
                            &bn2_beta}) {
            strata::dsl::estimate_extents(*param, {channels});
        }

        if (!using_autoscheduler()) schedule_manually(mid, conv1, conv2);
    }

private:
    // Two kernels, one per convolution, stored by mid and by output. A block
    // computes a 32 (x) × 4 (y) × 32 (channel) tile with 8 × 4 × 8 threads
    // (ConvTile's default); each thread accumulates a 4 (x) × 4 (channel)
    // register tile over the C × 3 × 3 reduction (taps unrolled: per input
    // channel, 18 input and 36 weight loads through L1 for 144 FMAs), then
    // applies the batch norm, ReLU and (second kernel) the shortcut as it
    // stores.
    void schedule_manually(Func mid, Func conv1, Func conv2) {
        strata::apps::register_blocked_conv(mid, conv1, strata::apps::ConvTile{});
        strata::apps::register_blocked_conv(output, conv2, strata::apps::ConvTile{});
    }

    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ResnetBlock, resnet_block)
