// matmul: a float32 matrix product C = A·B, the reference dense kernel.
//
// Layout: a(k, m) is M×K, b(n, k) is K×N, output(n, m) is M×N, innermost
// dimension first. K is a's width. Estimates: 1024³.
#include "Halide.h"
#include "strata/dsl/Estimates.h"
#include "strata/dsl/nn/Matmul.h"

namespace {

using namespace Halide;

class Matmul : public Generator<Matmul> {
public:
    Input<Buffer<float>> a{"a", 2};
    Input<Buffer<float>> b{"b", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Func product = strata::dsl::nn::matmul(a, b, a.dim(0).extent(), "product");
        output(n, m) = product(n, m);

        strata::dsl::estimate_extents(a, {1024, 1024});
        strata::dsl::estimate_extents(b, {1024, 1024});
        strata::dsl::estimate_extents(output, {1024, 1024});

        if (!using_autoscheduler()) schedule_manually(product);
    }

private:
    // Register blocking: each 64×64 output tile is one block of 16×16
    // threads, each thread accumulating a 4×4 sub-tile in registers over the
    // whole K loop (8 loads feed 16 FMAs per k).
    void schedule_manually(Func product) {
        Var no("no"), mo("mo"), ni("ni"), mi("mi"), nii("nii"), mii("mii");
        output.compute_root()
            .tile(n, m, no, mo, ni, mi, 64, 64)
            .tile(ni, mi, ni, mi, nii, mii, 4, 4)
            .reorder(nii, mii, ni, mi, no, mo)
            .gpu_blocks(no, mo)
            .gpu_threads(ni, mi)
            .unroll(nii)
            .unroll(mii);
        Var pn = product.args()[0], pm = product.args()[1];
        product.compute_at(output, ni).unroll(pn).unroll(pm);
        product.update().reorder(pn, pm, product.rvars()[0]).unroll(pn).unroll(pm);
    }

    Var n{"n"}, m{"m"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Matmul, matmul)
