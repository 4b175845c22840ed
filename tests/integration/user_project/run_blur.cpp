// Runs the user's pipeline, scheduled by Strata through CMake (blur) and
// through the generator command line (blur_cli), on a constant image: a blur
// of a constant is the same constant everywhere, edges included.
#include "HalideBuffer.h"
#include "blur.h"
#include "blur_cli.h"

#include <cmath>
#include <cstdio>

namespace {

using Pipeline = int (*)(halide_buffer_t *, halide_buffer_t *);

int wrong_pixels(const char *name, Pipeline pipeline) {
    Halide::Runtime::Buffer<float> input(300, 200), output(300, 200);
    input.fill(0.75f);
    input.set_host_dirty();
    if (int error = pipeline(input, output)) {
        std::fprintf(stderr, "%s: the pipeline failed with Halide error %d\n", name, error);
        return 1;
    }
    output.copy_to_host();
    int wrong = 0;
    output.for_each_value([&](float v) { wrong += std::fabs(v - 0.75f) > 1e-5f; });
    std::printf("%s: %d of %d pixels wrong\n", name, wrong, int(output.number_of_elements()));
    return wrong;
}

}  // namespace

int main() {
    const int wrong = wrong_pixels("blur (add_halide_library)", blur) +
                      wrong_pixels("blur_cli (generator command line)", blur_cli);
    return wrong == 0 ? 0 : 1;
}
