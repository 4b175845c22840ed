// A user's pipeline: a Gaussian blur from Strata's operator library, with
// estimates on its input and output and no schedule at all.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/image/Blur.h"

class Blur : public Halide::Generator<Blur> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(input);
        Halide::Func blurred = strata::dsl::image::gaussian_blur(clamped, 2.0f, "blurred");
        output(x, y) = blurred(x, y);
        strata::dsl::estimate_extents(input, {1920, 1080});
        strata::dsl::estimate_extents(output, {1920, 1080});
    }

private:
    Halide::Var x{"x"}, y{"y"};
};

HALIDE_REGISTER_GENERATOR(Blur, blur)
