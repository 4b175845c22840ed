// Strata in-process, as a program that builds its pipeline at run time would
// use it: load the plugin, let Strata schedule the pipeline for a GPU target
// with generator-style keys, then JIT-compile and run it (OpenCL under PoCL
// here) and compare with the same algorithm run unscheduled on the CPU.
#include "Halide.h"
#include "strata/dsl/image/Blur.h"

#include <cmath>
#include <cstdio>
#include <random>

namespace {

Halide::Func make_blur(const Halide::ImageParam &input) {
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(input);
    return strata::dsl::image::gaussian_blur(clamped, 2.0f, "blurred");
}

}  // namespace

int main() {
    try {
        Halide::load_plugin(STRATA_PLUGIN);
        Halide::ImageParam input(Halide::Float(32), 2, "input");
        Halide::Buffer<float> image(300, 200);
        std::mt19937 random(1);
        image.for_each_value([&](float &v) { v = std::uniform_real_distribution<float>(0.0f, 1.0f)(random); });
        // Written through its host pointer, which does not mark it dirty: without
        // this the GPU pipeline reads whatever its device copy holds.
        image.set_host_dirty();
        input.set(image);

        Halide::Func gpu_blur = make_blur(input);
        gpu_blur.set_estimates({{0, 1920}, {0, 1080}});
        input.set_estimates({{0, 1920}, {0, 1080}});
        Halide::Pipeline gpu_pipeline(gpu_blur);
        const Halide::Target target(USER_HALIDE_TARGET);
        const Halide::AutoSchedulerResults results =
            gpu_pipeline.apply_autoscheduler(target, {"Strata", {{"beam_size", "8"}}});
        if (results.schedule_source.find("gpu_blocks") == std::string::npos) {
            std::fprintf(stderr, "the schedule has no GPU kernel:\n%s\n", results.schedule_source.c_str());
            return 1;
        }
        Halide::Buffer<float> on_gpu = gpu_pipeline.realize({300, 200}, target);
        on_gpu.copy_to_host();

        Halide::Buffer<float> on_cpu = make_blur(input).realize({300, 200});
        float worst = 0;
        on_cpu.for_each_element([&](int x, int y) { worst = std::max(worst, std::fabs(on_gpu(x, y) - on_cpu(x, y))); });
        std::printf("in-process Strata schedule for %s: max abs difference %g\n", target.to_string().c_str(), worst);
        return worst <= 1e-5f ? 0 : 1;
    } catch (const Halide::Error &e) {
        std::fprintf(stderr, "Halide error: %s\n", e.what());
        return 1;
    }
}
