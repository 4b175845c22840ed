// The 3×3 weights of each stage of stencil_chain, shared by the generator and
// the reference so that both compute the same function. Each stage gets a
// different, normalized, slightly asymmetric kernel, so that no two stages
// are the same Func and nothing folds away.
#pragma once

#include <array>

namespace stencil_chain {

inline std::array<float, 9> stage_weights(int stage) {
    std::array<float, 9> w{};
    float total = 0;
    for (int i = 0; i < 9; ++i) {
        w[i] = float(1 + (stage * 7 + i * 3) % 5);
        total += w[i];
    }
    for (float &v : w) v /= total;
    return w;
}

}  // namespace stencil_chain
