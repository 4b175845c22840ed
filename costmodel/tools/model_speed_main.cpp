// strata-costmodel-speed: what the learned model adds to the cost of
// evaluating candidate schedules, per stage, against the analytic model
// alone — the number that decides whether the search can afford it.
// Candidates are synthetic schedules (SyntheticProfiles) of 1-6 stages,
// evaluated in batches of several sizes; each timing is the best of 7 runs.
//
// usage: strata-costmodel-speed [HIDDEN_SIZES ...]    e.g. 24,16 32,32
#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/LearnedCostModel.h"
#include "strata/costmodel/SyntheticProfiles.h"
#include "strata/costmodel/Trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace strata::costmodel;

// Nanoseconds per stage to predict `all` in batches of `batch` schedules.
double nanoseconds_per_stage(const CostModel &model, const std::vector<const ScheduleFeatures *> &all, size_t batch) {
    double best = 1e300;
    for (int repeat = 0; repeat < 7; ++repeat) {
        size_t stages = 0;
        double sink = 0;
        const auto start = std::chrono::steady_clock::now();
        for (size_t first = 0; first + batch <= all.size(); first += batch) {
            const std::vector<const ScheduleFeatures *> chunk(all.begin() + long(first),
                                                              all.begin() + long(first + batch));
            for (const ScheduleFeatures *s : chunk) stages += s->size();
            sink += model.predict(chunk)[0];
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (sink < 0) std::printf("impossible\n");  // keeps the predictions alive
        best = std::min(best, seconds * 1e9 / double(stages));
    }
    return best;
}

std::vector<int> parse_sizes(const std::string &text) {
    std::vector<int> sizes;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) sizes.push_back(std::stoi(part));
    return sizes;
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::vector<int>> architectures;
    for (int i = 1; i < argc; ++i) architectures.push_back(parse_sizes(argv[i]));
    if (architectures.empty()) architectures.push_back(TrainerOptions().hidden_sizes);

    SyntheticOptions options;
    options.pipelines = 64;
    options.schedules_per_pipeline = 32;
    const GpuSpec &spec = GpuSpec::default_spec();
    const std::vector<MeasuredPipeline> data = make_synthetic_pipelines(options, spec);
    std::vector<const ScheduleFeatures *> all;
    size_t stages = 0;
    for (const MeasuredPipeline &p : data) {
        for (const MeasuredSchedule &s : p.schedules) {
            all.push_back(&s.stages);
            stages += s.stages.size();
        }
    }
    std::printf("%zu candidate schedules, %zu stages, on %s\n", all.size(), stages, spec.name.c_str());
    const AnalyticModel analytic(spec);
    for (const std::vector<int> &hidden : architectures) {
        LearnedModel model = LearnedModel::identity(hidden, 1);
        model.layers().back().weights.setRandom();  // no shortcut for zeros
        const LearnedCostModel learned(spec, Weights{model}, "random");
        std::string name;
        for (int h : hidden) name += (name.empty() ? "" : ",") + std::to_string(h);
        for (size_t batch : {size_t(1), size_t(16), size_t(256)}) {
            const double a = nanoseconds_per_stage(analytic, all, batch);
            const double l = nanoseconds_per_stage(learned, all, batch);
            std::printf("hidden %-6s batch %3zu: analytic %6.0f ns/stage, learned %6.0f ns/stage (+%.0f ns, %.1fx)\n",
                        name.c_str(), batch, a, l, l - a, l / a);
        }
    }
    return 0;
}
