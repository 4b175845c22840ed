// ConvSchedule: the register-blocked manual GPU schedule of a direct
// convolution (dsl nn::conv2d, NCHW) and the Func that stores its result —
// the conv_layer, resnet_block and unet apps. Shared by the apps'
// generators; the dsl itself stays free of schedules.
//
// Example (conv_layer: relu(bias + conv) stored by `output`, the default tile):
//   strata::apps::register_blocked_conv(output, conv, strata::apps::ConvTile{});
//   // unet's 16-channel layers: more row threads, fewer channel threads, taps as loops.
//   strata::apps::register_blocked_conv(act, conv, {8, 4, 8, 4, 4, false});
#pragma once

#include "Halide.h"

#include <vector>

namespace strata::apps {

// The output tile of one block, as threads × registers per thread in x and
// in channels, and threads in y. The default, 32 (x) × 4 (y) × 32 (c) with
// 8 × 4 × 8 threads and 4 × 4 registers each, gives each input channel 18
// input and 36 weight loads (through L1) for 144 FMAs when the taps are
// unrolled.
struct ConvTile {
    int x_threads = 8, x_registers = 4, y_threads = 4, c_threads = 8, c_registers = 4;
    // Unrolling the kw × kh taps adds reuse of loaded values but multiplies
    // the statements Halide lowers (and the GPU compiler compiles).
    bool unroll_taps = true;
};

// consumer(x, y, c, n), one kernel: each block computes a tile of consumer,
// each thread accumulates its x_registers × c_registers outputs of conv in
// registers over the whole reduction (rx, ry, rc), taps innermost, and
// consumer's pointwise work (bias, batch norm, ReLU, ...) is applied as the
// registers are stored. conv is zero-initialized and accumulates in place
// over its one RVar set (rx, ry, rc).
inline void register_blocked_conv(Halide::Func consumer, Halide::Func conv, const ConvTile &t) {
    const std::vector<Halide::Var> v = consumer.args();  // (x, y, c, n)
    Halide::Var xo("xo"), xi("xi"), xt("xt"), xr("xr"), yo("yo"), yt("yt");
    Halide::Var co("co"), ci("ci"), ct("ct"), cr("cr"), z("z");
    consumer.compute_root()
        .split(v[0], xo, xi, t.x_threads * t.x_registers)
        .split(xi, xt, xr, t.x_registers)
        .split(v[1], yo, yt, t.y_threads)
        .split(v[2], co, ci, t.c_threads * t.c_registers)
        .split(ci, ct, cr, t.c_registers)
        .reorder(xr, cr, xt, yt, ct, xo, yo, co, v[3])
        .fuse(co, v[3], z)
        .gpu_blocks(xo, yo, z)
        .unroll(xr)
        .unroll(cr);
    // With one channel thread ct has extent 1: no GPU thread dimension for it.
    if (t.c_threads > 1) {
        consumer.gpu_threads(xt, yt, ct);
    } else {
        consumer.gpu_threads(xt, yt);
    }

    const std::vector<Halide::Var> p = conv.args();     // (x, y, c, n)
    const std::vector<Halide::RVar> r = conv.rvars(0);  // (rx, ry, rc)
    conv.compute_at(consumer, xt).unroll(p[0]).unroll(p[2]);
    conv.update().reorder(p[0], p[2], r[0], r[1], p[1], p[3], r[2]).unroll(p[0]).unroll(p[2]);
    if (t.unroll_taps) conv.update().unroll(r[0]).unroll(r[1]);
}

}  // namespace strata::apps
