// Writes a stand-in featurization for a pipeline: made-up but well-formed
// per-stage features (SyntheticProfiles) under the pipeline's name, so that
// the strata-bench → profiling log → strata-retrain path can be tested
// before builds made by the Strata plugin emit real featurizations.
//
// usage: strata_stand_in_featurization PIPELINE_NAME OUTPUT.featurization
#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/SyntheticProfiles.h"

#include <cstdio>
#include <exception>

int main(int argc, char **argv) {
    using namespace strata::costmodel;
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s PIPELINE_NAME OUTPUT.featurization\n", argv[0]);
        return 2;
    }
    try {
        SyntheticOptions options;
        options.pipelines = 1;
        options.schedules_per_pipeline = 1;
        const MeasuredPipeline made_up = make_synthetic_pipelines(options, GpuSpec::default_spec()).front();
        Featurization f;
        f.identity = {argv[1], ContentHash::of_text(std::string("stand-in ") + argv[1]),
                      ContentHash::of_text(made_up.schedules[0].label)};
        f.stages = made_up.schedules[0].stages;
        f.write_file(argv[2]);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
