// stencil_chain, in plain C++: each stage is computed in full over the region
// the next one needs (one pixel of halo per remaining stage).
#include "stencil_chain_weights.h"
#include "strata/harness/AppCheckSpec.h"

#include <vector>

namespace {

constexpr int kStencils = 8;  // the generator's default

void stencil_chain_reference(strata::harness::ReferenceArguments &args) {
    auto input = args.input<float>("input");
    auto output = args.output<float>("output");
    const int width = output.dim(0).extent(), height = output.dim(1).extent();

    // current(x, y) for x, y in [-halo, size + halo), stored with the halo offset.
    int halo = kStencils;
    std::vector<float> current((width + 2 * halo) * (height + 2 * halo));
    for (int y = -halo; y < height + halo; ++y) {
        for (int x = -halo; x < width + halo; ++x) {
            current[(y + halo) * (width + 2 * halo) + (x + halo)] = input(x, y);
        }
    }
    for (int stage = 1; stage <= kStencils; ++stage) {
        const auto w = stencil_chain::stage_weights(stage);
        const int in_halo = halo, in_stride = width + 2 * in_halo;
        halo -= 1;
        const int stride = width + 2 * halo;
        std::vector<float> next(stride * (height + 2 * halo));
        for (int y = -halo; y < height + halo; ++y) {
            for (int x = -halo; x < width + halo; ++x) {
                float sum = 0;
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dx = -1; dx <= 1; ++dx) {
                        sum += w[(dy + 1) * 3 + (dx + 1)] *
                               current[(y + dy + in_halo) * in_stride + (x + dx + in_halo)];
                    }
                }
                next[(y + halo) * stride + (x + halo)] = sum;
            }
        }
        current.swap(next);
    }
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) output(x, y) = current[y * width + x];
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.output_extents["output"] = {256, 192};
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = stencil_chain_reference;
    return spec;
}
