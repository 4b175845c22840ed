// unet: a small U-Net (Ronneberger et al. 2015) for semantic segmentation,
// of the size used for surgical-scene segmentation (instrument types in
// endoscopic video), NCHW, float32:
//   encoder:    3 levels of [conv3×3 + bias + ReLU] × 2, then 2×2 max pooling
//   bottleneck: [conv3×3 + bias + ReLU] × 2
//   decoder:    3 levels of bilinear ×2 upsampling, concatenation
//               [skip, upsampled] along channels, [conv3×3 + bias + ReLU] × 2
//   head:       conv1×1 + bias to the class logits
// Widths (base_width = 16): 16, 32, 64 | 128 | 64, 32, 16 → classes = 8; see
// unet_layers.h. All padding is zero, 1 pixel. Estimates: one 3 × 256 × 256
// image. Width and height come from the input (divisible by 8).
//
// Stages per layer L: L_weights, L_bias (views into the packed parameters,
// inlined), L_conv_padded (inlined), L_conv (update over C_in × 3 × 3),
// L_biased (inlined), L (ReLU); pool1..3, up1..3 (with _x), cat1..3,
// head_conv, logits → output.
//
// The parameters come packed in two buffers, `weights` and `biases` (layout
// in unet_layers.h), rather than as 30 buffers: Halide 14's lowering time
// (measured then; not re-measured on Halide 21)
// grows quadratically with the number of buffer arguments, and with one
// buffer per layer this generator took 4× longer to compile (17.6 s against
// 4.6 s for the manual CUDA build, measured). The channel counts are
// therefore generator parameters.
#include "ConvSchedule.h"
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/Stages.h"
#include "strata/dsl/nn/Activation.h"
#include "strata/dsl/nn/Bias.h"
#include "strata/dsl/nn/Concat.h"
#include "strata/dsl/nn/Conv2d.h"
#include "strata/dsl/nn/Pool.h"
#include "strata/dsl/nn/Upsample.h"
#include "unet_layers.h"

#include <map>

namespace {

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::apps::ConvTile;

class Unet : public Generator<Unet> {
public:
    GeneratorParam<int> base_width{"base_width", unet::kDefaultBaseWidth, 1, 1024};
    GeneratorParam<int> classes{"classes", unet::kDefaultClasses, 1, 1024};

    Input<Buffer<float>> input{"input", 4};      // (w, h, 3, n)
    Input<Buffer<float>> weights{"weights", 1};  // every layer's (kw, kh, c_in, c_out), packed
    Input<Buffer<float>> biases{"biases", 1};    // every layer's (c_out), packed
    Output<Buffer<float>> output{"output", 4};   // (w, h, classes, n)

    void generate() {
        for (const unet::Layer &layer : unet::layers(base_width, classes)) {
            layers_[layer.name] = layer;
            Var kx("kx"), ky("ky"), ci("ci"), co("co");
            Func w(layer.name + "_weights"), b(layer.name + "_bias");
            w(kx, ky, ci, co) = weights(layer.weights_offset + layer.weight_index<Expr>(kx, ky, ci, co));
            b(co) = biases(layer.bias_offset + co);
            weights_[layer.name] = w;
            bias_[layer.name] = b;
        }

        // Spatial extents per level.
        std::vector<Expr> width{input.dim(0).extent()}, height{input.dim(1).extent()};
        for (int level = 1; level <= 3; ++level) {
            width.push_back(width.back() / 2);
            height.push_back(height.back() / 2);
        }
        const auto block = [&](Func in, const char *first, const char *second, int level) {
            return conv_relu(conv_relu(in, first, width[level], height[level]), second, width[level], height[level]);
        };
        const auto pool = [&](Func in, const std::string &name) {
            return nn::max_pool(in, {}, nn::Window2d{2, 2, 0, 1}, kLayout, name);
        };
        // The decoder's input at `level`: [skip, upsampled from level + 1].
        const auto join = [&](Func skip, const char *skip_layer, Func deeper, const char *deeper_layer, int level) {
            const std::string suffix = std::to_string(level + 1);
            Func up =
                nn::upsample_bilinear2x(deeper, {width[level + 1], height[level + 1], {}}, kLayout, "up" + suffix);
            return nn::concat_channels({skip, up}, {out_channels(skip_layer), out_channels(deeper_layer)}, kLayout,
                                       "cat" + suffix);
        };

        Func enc1 = block(input, "enc1a", "enc1b", 0);
        Func enc2 = block(pool(enc1, "pool1"), "enc2a", "enc2b", 1);
        Func enc3 = block(pool(enc2, "pool2"), "enc3a", "enc3b", 2);
        Func mid = block(pool(enc3, "pool3"), "mid_a", "mid_b", 3);
        Func dec3 = block(join(enc3, "enc3b", mid, "mid_b", 2), "dec3a", "dec3b", 2);
        Func dec2 = block(join(enc2, "enc2b", dec3, "dec3b", 1), "dec2a", "dec2b", 1);
        Func dec1 = block(join(enc1, "enc1b", dec2, "dec2b", 0), "dec1a", "dec1b", 0);
        Func head_conv = nn::conv2d(dec1, weights_.at("head"), {width[0], height[0], in_channels("head")},
                                    nn::Window2d{1, 1, 0, 1}, kLayout, "head_conv");
        Func logits = nn::bias_add(head_conv, bias_.at("head"), kLayout, "logits");
        output(x, y, c, n) = logits(x, y, c, n);

        const int size = 256;
        const std::vector<unet::Layer> table = unet::layers(base_width, classes);
        strata::dsl::estimate_extents(input, {size, size, unet::kInputChannels, 1});
        strata::dsl::estimate_extents(weights, {unet::total_weights(table)});
        strata::dsl::estimate_extents(biases, {unet::total_biases(table)});
        strata::dsl::estimate_extents(output, {size, size, classes, 1});

#ifdef STRATA_REPLAY_FUNCTION
        // The schedule-source test: an emitted Strata schedule instead (tests/autoscheduler).
        if (!using_autoscheduler()) return STRATA_REPLAY_FUNCTION(get_pipeline(), get_target());
#endif
        if (!using_autoscheduler()) schedule_manually(head_conv);
    }

private:
    // 21 kernels. Each 3×3 convolution is one register-blocked kernel (as in
    // conv_layer: each thread accumulates 4 (x) × 4 (channel) outputs over
    // C_in × 3 × 3 in registers and stores them with bias and ReLU); layers
    // 16 channels wide use 4 channel threads and 8 row threads so that no
    // thread idles. Unlike conv_layer, the 3 × 3 taps stay loops: unrolling
    // them in all 14 layers makes Halide's lowering 3-4× slower (2.6 s →
    // 9 s for the OpenCL build, measured) and PoCL's kernel compilation
    // with it, for a small gain in load reuse. Each max pool is a kernel computing one output
    // per thread (its 2 × 2 max in registers); each concatenation is a kernel
    // that also does the upsampling (inlined: 4 reads per output). The head
    // is register-blocked over 4 classes × 4 pixels per thread.
    void schedule_manually(Func head_conv) {
        const bool unroll_taps = false;
        const ConvTile wide{8, 4, 4, 8, 4, unroll_taps}, narrow{8, 4, 8, 4, 4, unroll_taps};
        for (const auto &[name, layer] : layers_) {
            if (name == "head") continue;
            Func act = strata::dsl::find_stage(output, name);
            strata::apps::register_blocked_conv(act, strata::dsl::find_stage(act, name + "_conv"),
                                                layer.out_channels >= 32 ? wide : narrow);
        }
        strata::apps::register_blocked_conv(output, head_conv, ConvTile{16, 4, 8, 1, 4, unroll_taps});

        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), z("z");
        for (const char *name : {"pool1", "pool2", "pool3"}) {
            Func pool = strata::dsl::find_stage(output, name);
            Func stored = pool.in();
            const std::vector<Var> v = stored.args();
            stored.compute_root()
                .gpu_tile(v[0], v[1], xo, yo, xi, yi, 32, 8)
                .fuse(v[2], v[3], z)
                .gpu_blocks(z);
            pool.compute_at(stored, xi);
            pool.update().unroll(pool.rvars(0)[0]).unroll(pool.rvars(0)[1]);
        }
        for (const char *name : {"cat1", "cat2", "cat3"}) {
            Func cat = strata::dsl::find_stage(output, name);
            const std::vector<Var> v = cat.args();
            cat.compute_root().gpu_tile(v[0], v[1], xo, yo, xi, yi, 32, 8).fuse(v[2], v[3], z).gpu_blocks(z);
        }
    }

    // relu(bias + conv3x3(in)) for layer `name` at a level of size w × h.
    Func conv_relu(Func in, const std::string &name, Expr w, Expr h) {
        Func conv = nn::conv2d(in, weights_.at(name), {w, h, in_channels(name)}, nn::Window2d{3, 1, 1, 1}, kLayout,
                               name + "_conv");
        return nn::relu(nn::bias_add(conv, bias_.at(name), kLayout, name + "_biased"), name);
    }

    Expr in_channels(const std::string &layer) const {
        return layers_.at(layer).in_channels;
    }

    Expr out_channels(const std::string &layer) const {
        return layers_.at(layer).out_channels;
    }

    static constexpr nn::Layout kLayout = nn::Layout::NCHW;
    std::map<std::string, unet::Layer> layers_;
    std::map<std::string, Func> weights_, bias_;
    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Unet, unet)
