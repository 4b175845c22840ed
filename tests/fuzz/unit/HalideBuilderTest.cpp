// The builder and the interpreter are two independent readings of one
// description: JIT-compiled for the host with every stage at the root, the
// built Funcs must give the interpreter's values.
#include "strata/fuzz/HalideBuilder.h"
#include "strata/fuzz/RandomPipeline.h"
#include "strata/fuzz/TensorBuffer.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>

using namespace strata::fuzz;

namespace {

// Runs the description both ways and returns the worst relative error over
// all outputs (integers must match exactly: any difference counts as 1).
double worst_disagreement(const Description &d, uint64_t input_seed) {
    std::map<std::string, Halide::Func> funcs;
    std::map<std::string, Tensor> tensors;
    std::vector<Halide::ImageParam> params;
    for (const Stage &s : d.stages) {
        const auto *input = std::get_if<InputOp>(&s.op);
        if (!input) continue;
        Halide::Buffer<> buffer(halide_type(input->type), std::vector<int>(input->shape.begin(), input->shape.end()));
        strata::runtime::fill_uniform(*buffer.get(), fill_range(*input), input_seed++);
        Halide::ImageParam param(halide_type(input->type), int(input->shape.size()), s.name);
        param.set(buffer);
        params.push_back(param);
        funcs[s.name] = param;
        tensors[s.name] = tensor_from_buffer(*buffer.get(), input->type, input->shape);
    }
    BuiltPipeline built = build_pipeline(d, funcs);
    schedule_compute_root(built, d);
    std::vector<Halide::Func> outputs;
    std::vector<Halide::Buffer<>> buffers;
    for (int o : d.outputs) {
        outputs.push_back(built.stages[o]);
        for (ScalarType t : d.stages[o].types) {
            buffers.emplace_back(halide_type(t), std::vector<int>(d.stages[o].shape.begin(), d.stages[o].shape.end()));
        }
    }
    Halide::Pipeline(outputs).realize(Halide::Realization(buffers));
    const std::vector<StageValue> expected = evaluate(d, tensors);
    double worst = 0;
    size_t b = 0;
    for (int o : d.outputs) {
        for (const Tensor &want : expected[o]) {
            const Tensor got = tensor_from_buffer(*buffers[b++].get(), want.type(), want.shape());
            for (int64_t i = 0; i < want.size(); ++i) {
                const double error = std::fabs(got[i] - want[i]);
                if (is_float(want.type())) {
                    worst = std::max(worst, error / std::max(1.0, std::fabs(want[i])));
                } else if (error != 0) {
                    worst = std::max(worst, 1.0);
                }
            }
        }
    }
    return worst;
}

}  // namespace

// STRATA_FUZZ_JIT="first last budget" checks more seeds than the default.
TEST_CASE("built Funcs compute what the interpreter computes") {
    unsigned long long first = 0, last = 30;
    int budget = 7;
    if (const char *range = std::getenv("STRATA_FUZZ_JIT")) std::sscanf(range, "%llu %llu %d", &first, &last, &budget);
    for (uint64_t seed = first; seed < last; ++seed) {
        CAPTURE(seed);
        const Description d = draw_random_pipeline(seed, budget);
        CHECK(worst_disagreement(d, seed) < 1e-4);
    }
}
