// unet_layers: the layer table of the unet app — names, resolution levels,
// channel counts and where each layer's parameters sit in the two packed
// parameter buffers — shared by the generator and the reference.
//
// Packing: `weights` is the concatenation, in table order, of every layer's
// dense (kw, kh, c_in, c_out) array (kw innermost), and `biases` that of
// every layer's (c_out) vector.
//
// Example:
//   for (const unet::Layer &layer : unet::layers(16, 8))
//       weight(x, y, ci, co) = weights(layer.weights_offset + layer.weight_index(x, y, ci, co));
#pragma once

#include <string>
#include <vector>

namespace unet {

constexpr int kInputChannels = 3;
constexpr int kDefaultBaseWidth = 16;
constexpr int kDefaultClasses = 8;

// One convolution (+ bias, + ReLU except for the head) at resolution level
// `level` (full size / 2^level).
struct Layer {
    std::string name;
    int level;
    int kernel;
    int in_channels;
    int out_channels;
    int weights_offset;
    int bias_offset;

    int weight_count() const {
        return kernel * kernel * in_channels * out_channels;
    }
    // Offset of weight (x, y, ci, co) within the layer's slice.
    template <typename T>
    T weight_index(T x, T y, T ci, T co) const {
        return x + kernel * (y + kernel * (ci + in_channels * co));
    }
};

// Encoder (two 3×3 convs per level, then 2×2 max pooling), bottleneck,
// decoder (bilinear ×2 upsampling, concatenation [skip, upsampled], two 3×3
// convs), then the 1×1 head to the class logits. Widths: base, 2 base,
// 4 base | 8 base | 4 base, 2 base, base → classes.
inline std::vector<Layer> layers(int base_width, int classes) {
    const int w1 = base_width, w2 = 2 * base_width, w3 = 4 * base_width, w4 = 8 * base_width;
    std::vector<Layer> table = {
        {"enc1a", 0, 3, kInputChannels, w1, 0, 0}, {"enc1b", 0, 3, w1, w1, 0, 0},
        {"enc2a", 1, 3, w1, w2, 0, 0},             {"enc2b", 1, 3, w2, w2, 0, 0},
        {"enc3a", 2, 3, w2, w3, 0, 0},             {"enc3b", 2, 3, w3, w3, 0, 0},
        {"mid_a", 3, 3, w3, w4, 0, 0},             {"mid_b", 3, 3, w4, w4, 0, 0},
        {"dec3a", 2, 3, w3 + w4, w3, 0, 0},        {"dec3b", 2, 3, w3, w3, 0, 0},
        {"dec2a", 1, 3, w2 + w3, w2, 0, 0},        {"dec2b", 1, 3, w2, w2, 0, 0},
        {"dec1a", 0, 3, w1 + w2, w1, 0, 0},        {"dec1b", 0, 3, w1, w1, 0, 0},
        {"head", 0, 1, w1, classes, 0, 0},
    };
    int weights = 0, biases = 0;
    for (Layer &layer : table) {
        layer.weights_offset = weights;
        layer.bias_offset = biases;
        weights += layer.weight_count();
        biases += layer.out_channels;
    }
    return table;
}

inline int total_weights(const std::vector<Layer> &table) {
    return table.back().weights_offset + table.back().weight_count();
}

inline int total_biases(const std::vector<Layer> &table) {
    return table.back().bias_offset + table.back().out_channels;
}

}  // namespace unet
