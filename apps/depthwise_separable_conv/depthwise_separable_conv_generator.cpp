// depthwise_separable_conv: a MobileNet (v1) depthwise-separable block in
// NHWC, float32, with the batch norms folded into biases:
//   dw_out = relu(depthwise3x3(input) + dw_bias)        stride 1, zero padding 1
//   output = relu(pointwise1x1(dw_out) + pw_bias)        C_in → C_out
//
// Stages: dw_padded (inlined) → dw (zero + 3×3 update) → dw_biased →
// dw_out → pw (zero + update over C_in) → pw_biased → output. Estimates:
// MobileNet's second block, batch 4, 112 × 112, 32 → 64 channels. Channel
// counts come from the buffers (C_in from input.dim(0), C_out from the
// output), so any sizes can be run.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/nn/Activation.h"
#include "strata/dsl/nn/Bias.h"
#include "strata/dsl/nn/Conv2d.h"
#include "strata/dsl/nn/DepthwiseConv2d.h"

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;

class DepthwiseSeparableConv : public Generator<DepthwiseSeparableConv> {
public:
    Input<Buffer<float>> input{"input", 4};            // (c_in, w, h, n)
    Input<Buffer<float>> dw_weights{"dw_weights", 3};  // (3, 3, c_in)
    Input<Buffer<float>> dw_bias{"dw_bias", 1};        // (c_in)
    Input<Buffer<float>> pw_weights{"pw_weights", 4};  // (1, 1, c_in, c_out)
    Input<Buffer<float>> pw_bias{"pw_bias", 1};        // (c_out)
    Output<Buffer<float>> output{"output", 4};         // (c_out, w, h, n)

    void generate() {
        const nn::Layout nhwc = nn::Layout::NHWC;
        const nn::FeatureExtents in{input.dim(1).extent(), input.dim(2).extent(), input.dim(0).extent()};
        Func dw = nn::depthwise_conv2d(input, dw_weights, in, nn::Window2d{3, 1, 1, 1}, nhwc, "dw");
        Func dw_out = nn::relu(nn::bias_add(dw, dw_bias, nhwc, "dw_biased"), "dw_out");
        // The depthwise output has the input's spatial size and channels.
        Func pw = nn::conv2d(dw_out, pw_weights, in, nn::Window2d{1, 1, 0, 1}, nhwc, "pw");
        Func pw_biased = nn::bias_add(pw, pw_bias, nhwc, "pw_biased");
        output(c, x, y, n) = nn::relu(pw_biased(c, x, y, n));

        const int batch = 4, width = 112, height = 112, c_in = 32, c_out = 64;
        strata::dsl::estimate_extents(input, {c_in, width, height, batch});
        strata::dsl::estimate_extents(dw_weights, {3, 3, c_in});
        strata::dsl::estimate_extents(dw_bias, {c_in});
        strata::dsl::estimate_extents(pw_weights, {1, 1, c_in, c_out});
        strata::dsl::estimate_extents(pw_bias, {c_out});
        strata::dsl::estimate_extents(output, {c_out, width, height, batch});

        if (!using_autoscheduler()) schedule_manually(dw, dw_out, pw);
    }

private:
    // One fused kernel. A block owns 64 output channels × 32 pixels of one
    // row: its 16 × 8 threads first compute the depthwise result for those
    // pixels and every input channel into shared memory (C_in × 32 floats,
    // sized at run time; threads run across channels, so NHWC reads are
    // coalesced), then each thread accumulates a 4 (channel) × 4 (pixel)
    // register tile of the pointwise product over C_in from shared memory.
    // Both phases use the same 16 × 8 thread grid, so no thread idles. The
    // shared tile (C_in × 128 bytes) fits the 48 KB a block may hold up to
    // C_in = 384, which covers MobileNet up to its 14 × 14 stage; wider
    // layers would need the channel reduction split into chunks.
    void schedule_manually(Func dw, Func dw_out, Func pw) {
        Var co("co"), ci("ci"), ct("ct"), cr("cr"), xo("xo"), xi("xi"), xt("xt"), xr("xr"), yn("yn");
        output.compute_root()
            .split(c, co, ci, 64)
            .split(ci, ct, cr, 4)
            .split(x, xo, xi, 32)
            .split(xi, xt, xr, 4)
            .reorder(cr, xr, ct, xt, co, xo, y, n)
            .fuse(y, n, yn)
            .gpu_blocks(co, xo, yn)
            .gpu_threads(ct, xt)
            .unroll(cr)
            .unroll(xr);

        const std::vector<Var> p = pw.args();  // (c, x, y, n)
        const std::vector<RVar> pr = pw.rvars(0);  // (rc, rx, ry), rx and ry of extent 1
        pw.compute_at(output, ct).unroll(p[0]).unroll(p[1]);
        pw.update().reorder(p[0], p[1], pr[1], pr[2], p[2], p[3], pr[0]).unroll(p[0]).unroll(p[1]);

        // The block's depthwise tile: channels over 16 threads (guarded, as
        // C_in need not be a multiple of 16), pixels over 8 threads × 4.
        const std::vector<Var> d = dw_out.args();  // (c, x, y, n)
        Var dco("dco"), dct("dct"), dxo("dxo"), dxt("dxt");
        dw_out.compute_at(output, co)
            .split(d[0], dco, dct, 16, TailStrategy::GuardWithIf)
            .split(d[1], dxo, dxt, 8)
            .reorder(dxo, dco, dct, dxt, d[2], d[3])
            .gpu_threads(dct, dxt);
        const std::vector<RVar> wr = dw.rvars(0);  // (rx, ry)
        dw.compute_at(dw_out, dxo);
        dw.update().unroll(wr[0]).unroll(wr[1]);
    }

    Var c{"c"}, x{"x"}, y{"y"}, n{"n"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseSeparableConv, depthwise_separable_conv)
