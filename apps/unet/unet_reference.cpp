// unet, in plain C++: the same network, layer by layer, on double-precision
// feature maps — zero-padded 3×3 convolutions, 2×2 max pooling, bilinear ×2
// upsampling written from PyTorch's align_corners=False definition (source
// coordinate (o + 0.5) / 2 - 0.5, clamped at 0; the far neighbour clamped to
// the edge; reference/BilinearUpsample2x.h, shared with the dsl's upsample
// test), concatenation [skip, upsampled], and the 1×1 head.
#include "reference/BilinearUpsample2x.h"
#include "strata/harness/AppCheckSpec.h"
#include "unet_layers.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct FeatureMap {
    int width, height, channels;
    std::vector<double> values;
    FeatureMap(int w, int h, int c) : width(w), height(h), channels(c), values(size_t(w) * h * c, 0.0) {
    }
    double &at(int x, int y, int c) {
        return values[(size_t(c) * height + y) * width + x];
    }
    double at(int x, int y, int c) const {
        return values[(size_t(c) * height + y) * width + x];
    }
};

// The layers at the generator's default widths.
const std::vector<unet::Layer> &table() {
    static const std::vector<unet::Layer> layers = unet::layers(unet::kDefaultBaseWidth, unet::kDefaultClasses);
    return layers;
}

const unet::Layer &layer_named(const std::string &name) {
    for (const unet::Layer &layer : table()) {
        if (layer.name == name) return layer;
    }
    throw std::out_of_range("unet has no layer " + name);
}

FeatureMap conv(const FeatureMap &in, strata::harness::ReferenceArguments &args, const std::string &name,
                bool relu) {
    auto weights = args.input<float>("weights");
    auto biases = args.input<float>("biases");
    const unet::Layer &layer = layer_named(name);
    const int k = layer.kernel, pad = k / 2;
    FeatureMap out(in.width, in.height, layer.out_channels);
    for (int co = 0; co < out.channels; ++co) {
        for (int y = 0; y < out.height; ++y) {
            for (int x = 0; x < out.width; ++x) {
                double sum = biases(layer.bias_offset + co);
                for (int ci = 0; ci < in.channels; ++ci) {
                    for (int ry = 0; ry < k; ++ry) {
                        for (int rx = 0; rx < k; ++rx) {
                            const int sx = x + rx - pad, sy = y + ry - pad;
                            if (sx < 0 || sx >= in.width || sy < 0 || sy >= in.height) continue;
                            sum += in.at(sx, sy, ci) *
                                   double(weights(layer.weights_offset + layer.weight_index(rx, ry, ci, co)));
                        }
                    }
                }
                out.at(x, y, co) = relu ? std::max(sum, 0.0) : sum;
            }
        }
    }
    return out;
}

FeatureMap max_pool2x2(const FeatureMap &in) {
    FeatureMap out(in.width / 2, in.height / 2, in.channels);
    for (int c = 0; c < out.channels; ++c) {
        for (int y = 0; y < out.height; ++y) {
            for (int x = 0; x < out.width; ++x) {
                out.at(x, y, c) = std::max(std::max(in.at(2 * x, 2 * y, c), in.at(2 * x + 1, 2 * y, c)),
                                           std::max(in.at(2 * x, 2 * y + 1, c), in.at(2 * x + 1, 2 * y + 1, c)));
            }
        }
    }
    return out;
}

// [skip, bilinear ×2 of deeper] along channels.
FeatureMap join(const FeatureMap &skip, const FeatureMap &deeper) {
    FeatureMap out(skip.width, skip.height, skip.channels + deeper.channels);
    for (int c = 0; c < out.channels; ++c) {
        for (int y = 0; y < out.height; ++y) {
            for (int x = 0; x < out.width; ++x) {
                if (c < skip.channels) {
                    out.at(x, y, c) = skip.at(x, y, c);
                    continue;
                }
                const int dc = c - skip.channels;
                const auto plane = [&](int sx, int sy) { return deeper.at(sx, sy, dc); };
                out.at(x, y, c) = strata::testing::bilinear_upsample2x_at(plane, deeper.width, deeper.height, x, y);
            }
        }
    }
    return out;
}

void unet_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    for (int n = 0; n < input.dim(3).extent(); ++n) {
        FeatureMap image(input.dim(0).extent(), input.dim(1).extent(), input.dim(2).extent());
        for (int c = 0; c < image.channels; ++c)
            for (int y = 0; y < image.height; ++y)
                for (int x = 0; x < image.width; ++x) image.at(x, y, c) = input(x, y, c, n);
        const auto block = [&](const FeatureMap &in, const char *first, const char *second) {
            return conv(conv(in, args, first, true), args, second, true);
        };
        const FeatureMap enc1 = block(image, "enc1a", "enc1b");
        const FeatureMap enc2 = block(max_pool2x2(enc1), "enc2a", "enc2b");
        const FeatureMap enc3 = block(max_pool2x2(enc2), "enc3a", "enc3b");
        const FeatureMap mid = block(max_pool2x2(enc3), "mid_a", "mid_b");
        const FeatureMap dec3 = block(join(enc3, mid), "dec3a", "dec3b");
        const FeatureMap dec2 = block(join(enc2, dec3), "dec2a", "dec2b");
        const FeatureMap dec1 = block(join(enc1, dec2), "dec1a", "dec1b");
        const FeatureMap logits = conv(dec1, args, "head", false);
        for (int c = 0; c < logits.channels; ++c)
            for (int y = 0; y < logits.height; ++y)
                for (int x = 0; x < logits.width; ++x) output(x, y, c, n) = float(logits.at(x, y, c));
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    // The default widths (16 … 128 channels, 8 classes) on a 64 × 32 image:
    // levels of 64 × 32, 32 × 16, 16 × 8 and 8 × 4 pixels, so the deeper
    // levels are smaller than one 32-pixel tile.
    strata::harness::AppCheckSpec spec;
    const int width = 64, height = 32;
    spec.input_extents["input"] = {width, height, unet::kInputChannels, 1};
    spec.input_extents["weights"] = {unet::total_weights(table())};
    spec.input_extents["biases"] = {unet::total_biases(table())};
    spec.output_extents["output"] = {width, height, unet::kDefaultClasses, 1};
    // One range for every layer's weights: ±0.133 = sqrt(6 / 340) gives unit
    // gain per ReLU layer (He) at the geometric mean fan-in, 340, of the 14
    // ReLU layers, so activations stay O(1) through the network (observed:
    // 0.05 … 7) and neither the weights nor the biases dominate.
    spec.input_ranges["weights"] = {-0.133, 0.133};
    spec.input_ranges["biases"] = {-0.1, 0.1};
    // 15 chained float32 layers, sums of up to 1728 terms, activations up to
    // ~7 and logits below 1: observed errors stay under 1e-6; logits that
    // cancel to near zero need the absolute term.
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = unet_reference;
    return spec;
}
