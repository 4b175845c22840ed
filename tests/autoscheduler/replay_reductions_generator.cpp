// Reductions for the schedule-source tests: a matrix product (update stage
// with plenty of pure parallelism), a histogram and a full sum (both
// factored with rfactor), as three outputs of one pipeline.
#include "Halide.h"
#include "strata/dsl/Estimates.h"

namespace {

using namespace Halide;

class ReplayReductions : public Generator<ReplayReductions> {
public:
    Input<Buffer<float>> a{"a", 2};
    Input<Buffer<float>> b{"b", 2};
    Input<Buffer<uint8_t>> image{"image", 2};
    Output<Buffer<float>> product{"product", 2};
    Output<Buffer<int32_t>> histogram{"histogram", 1};
    Output<Buffer<float>> total{"total", 0};

    void generate() {
        RDom k(0, 512, "k");
        product(i, j) = 0.0f;
        product(i, j) += a(k, j) * b(i, k);
        RDom r(0, 1024, 0, 1024, "r");
        histogram(v) = 0;
        histogram(cast<int>(image(r.x, r.y))) += 1;
        total() = 0.0f;
        total() += cast<float>(image(r.x, r.y));
        strata::dsl::estimate_extents(a, {512, 512});
        strata::dsl::estimate_extents(b, {512, 512});
        strata::dsl::estimate_extents(image, {1024, 1024});
        strata::dsl::estimate_extents(product, {512, 512});
        strata::dsl::estimate_extents(histogram, {256});
    }

    void schedule() {
#ifdef STRATA_REPLAY_FUNCTION
        if (!using_autoscheduler()) STRATA_REPLAY_FUNCTION(get_pipeline(), get_target());
#endif
    }

private:
    Var i{"i"}, j{"j"}, v{"v"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ReplayReductions, replay_reductions)
