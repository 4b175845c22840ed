// An app check executable whose variants crash or hang the process (as some
// Halide autoschedulers' kernels do under PoCL when they read outside their
// buffers): app_check_main must report either as a result, with the signal or
// the time limit and the last line the pipeline printed, and a recorded known
// failure must pass while it reproduces.
#include "FakePipeline.h"
#include "strata/harness/AppCheck.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace {

int crashing_argv(void **args) {
    auto *out = static_cast<halide_buffer_t *>(args[2]);
    if (out->host == nullptr) return strata::testing::fake_pipeline_argv(args);  // the bounds query works
    std::fprintf(stderr, "corrupted on purpose\n");
    std::fflush(stderr);
    std::raise(SIGSEGV);
    return 0;
}

int hanging_argv(void **args) {
    auto *out = static_cast<halide_buffer_t *>(args[2]);
    if (out->host == nullptr) return strata::testing::fake_pipeline_argv(args);
    std::fprintf(stderr, "waiting forever\n");
    std::fflush(stderr);
    for (;;) pause();
}

// A crash that leaves behind a process holding the check's stderr (as a
// compiler PoCL started could): the crash is still reported as soon as it
// happens, not when that process lets go.
int crashing_with_helper_argv(void **args) {
    auto *out = static_cast<halide_buffer_t *>(args[2]);
    if (out->host == nullptr) return strata::testing::fake_pipeline_argv(args);
    if (fork() == 0) {
        close(STDOUT_FILENO);  // holds only the relayed stderr, not CTest's output
        sleep(20);
        std::_Exit(0);
    }
    return crashing_argv(args);
}

}  // namespace

strata::harness::AppCheckSpec strata_app_check_spec() {
    strata::harness::AppCheckSpec spec;
    spec.output_extents["out"] = {16};
    spec.reference = [](strata::harness::ReferenceArguments &) {};
    return spec;
}

int main(int argc, char **argv) {
    const std::vector<strata::harness::CompiledVariant> variants = {
        {"segfaults", crashing_argv, strata::testing::fake_pipeline_metadata, nullptr},
        {"hangs", hanging_argv, strata::testing::fake_pipeline_metadata, nullptr},
        {"segfaults_leaving_a_process", crashing_with_helper_argv, strata::testing::fake_pipeline_metadata,
         nullptr}};
    return strata::harness::app_check_main(argc, argv, "crashing", variants);
}
