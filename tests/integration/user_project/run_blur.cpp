// Runs the user's pipeline on a constant image: a blur of a constant is the
// same constant everywhere, edges included.
#include "HalideBuffer.h"
#include "blur.h"

#include <cmath>
#include <cstdio>

int main() {
    Halide::Runtime::Buffer<float> input(300, 200), output(300, 200);
    input.fill(0.75f);
    input.set_host_dirty();
    if (int error = blur(input, output)) {
        std::fprintf(stderr, "the pipeline failed with Halide error %d\n", error);
        return 1;
    }
    output.copy_to_host();
    int wrong = 0;
    output.for_each_value([&](float v) { wrong += std::fabs(v - 0.75f) > 1e-5f; });
    std::printf("%d of %d pixels wrong\n", wrong, int(output.number_of_elements()));
    return wrong == 0 ? 0 : 1;
}
