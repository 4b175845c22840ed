#include "strata/dsl/nn/Window.h"

#include "strata/dsl/Require.h"

namespace strata::dsl::nn {

Halide::Expr output_extent(const Halide::Expr &input_extent, const Window2d &window) {
    const int reach = window.dilation * (window.kernel - 1) + 1;
    return (input_extent + 2 * window.padding - reach) / window.stride + 1;
}

int output_extent(int input_extent, const Window2d &window) {
    const int reach = window.dilation * (window.kernel - 1) + 1;
    return (input_extent + 2 * window.padding - reach) / window.stride + 1;
}

Halide::Expr input_coordinate(const Halide::Expr &out, const Halide::Expr &tap, const Window2d &window) {
    Halide::Expr coordinate = window.stride == 1 ? out : out * window.stride;
    coordinate += window.dilation == 1 ? tap : tap * window.dilation;
    return window.padding == 0 ? coordinate : coordinate - window.padding;
}

void require_valid(const Window2d &window, const std::string &op) {
    const auto describe = [&] {
        return " (kernel " + std::to_string(window.kernel) + ", stride " + std::to_string(window.stride) +
               ", padding " + std::to_string(window.padding) + ", dilation " + std::to_string(window.dilation) + ")";
    };
    require(window.kernel > 0, op + ": the window's kernel size must be positive" + describe());
    require(window.stride > 0, op + ": the window's stride must be positive" + describe());
    require(window.dilation > 0, op + ": the window's dilation must be positive" + describe());
    require(window.padding >= 0, op + ": the window's padding must be non-negative" + describe());
    // A window that can lie entirely in the padding computes nothing from the input.
    require(window.padding < window.dilation * (window.kernel - 1) + 1,
            op + ": the padding must be smaller than the dilated kernel" + describe());
}

}  // namespace strata::dsl::nn
