// Prints a profiling log of synthetic records (SyntheticProfiles on the H200
// spec, measured on a stand-in H200) to stdout, each distinct schedule
// measured REPEATS times, for benchmarks of reading logs: the same distinct
// schedules in a log ten or a hundred times longer should cost strata-retrain
// no more memory.
//
// usage: strata_synthetic_log APPS SCHEDULES_PER_APP REPEATS > log.jsonl
#include "strata/costmodel/SyntheticProfiles.h"
#include "strata/runtime/ProfileLog.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char **argv) {
    using namespace strata;
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s APPS SCHEDULES_PER_APP REPEATS > log.jsonl\n", argv[0]);
        return 2;
    }
    try {
        costmodel::SyntheticOptions options;
        options.pipelines = std::atoi(argv[1]);
        options.schedules_per_pipeline = std::atoi(argv[2]);
        const int repeats = std::atoi(argv[3]);
        const costmodel::GpuSpec &h200 = costmodel::GpuSpec::by_name("h200");
        runtime::ProfileRecord r;
        r.target = "x86-64-linux-cuda-cuda_capability_86";
        r.featurized_for = h200;
        r.device.api = "cuda";
        r.device.info.name = h200.marketing_name;
        r.device.info.sm_count = h200.sm_count;
        r.device.info.compute_capability = h200.compute_capability;
        r.halide_version = runtime::halide_version();
        r.strata_version = runtime::strata_version();
        r.variant = "strata";
        for (int repeat = 0; repeat < repeats; ++repeat) {
            // Regenerated per pass, so that memory here stays flat too.
            for (const costmodel::MeasuredPipeline &p : costmodel::make_synthetic_pipelines(options, h200)) {
                for (const costmodel::MeasuredSchedule &s : p.schedules) {
                    r.identity = {p.name, p.pipeline_hash, *costmodel::ContentHash::from_hex(s.label), std::nullopt};
                    r.sizes = {{"output", {1024, 1024}}};
                    r.stages = s.stages;
                    const double ms = s.seconds * 1e3 * (1 + 0.01 * repeat);
                    r.times = {ms, ms, 1, {ms}};
                    std::fputs((r.to_line() + "\n").c_str(), stdout);
                }
            }
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
