// matmul, in plain C++: the triple loop, accumulating in double.
#include "strata/harness/AppCheckSpec.h"

namespace {

void matmul_reference(strata::harness::ReferenceArguments &args) {
    auto a = args.input<float>("a");
    auto b = args.input<float>("b");
    auto output = args.output<float>("output");
    const int k_extent = a.dim(0).extent();
    for (int m = 0; m < output.dim(1).extent(); ++m) {
        for (int n = 0; n < output.dim(0).extent(); ++n) {
            double sum = 0;
            for (int k = 0; k < k_extent; ++k) sum += double(a(k, m)) * double(b(n, k));
            output(n, m) = float(sum);
        }
    }
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.input_extents["a"] = {192, 256};  // K = 192
    spec.output_extents["output"] = {256, 256};
    spec.tolerance = {1e-4, 1e-5};
    spec.reference = matmul_reference;
    return spec;
}
