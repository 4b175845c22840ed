#include "PredictionPlots.h"

#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/LearnedCostModel.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#ifndef STRATA_PLOT_PREDICTIONS_SCRIPT
#error "STRATA_PLOT_PREDICTIONS_SCRIPT must be defined by the build"
#endif
#ifndef STRATA_PLOT_PYTHON
#error "STRATA_PLOT_PYTHON must be defined by the build"
#endif

extern char **environ;

namespace strata::costmodel {

namespace {

using Json = nlohmann::ordered_json;

// The analytic term that contributes most to a schedule's time, and its DRAM bytes.
std::pair<std::string, double> dominant_term(const ScheduleFeatures &stages, const GpuSpec &spec) {
    TermVector totals{};
    double dram_bytes = 0;
    for (const StageFeatures &stage : stages) {
        const TermVector t = AnalyticModel::terms(stage.features, spec);
        for (int i = 0; i < kNumTerms; ++i) totals[i] += t[i];
        dram_bytes += stage.features[index(Feature::DramBytes)];
    }
    int best = 0;
    for (int i = 1; i < kNumTerms; ++i) {
        if (totals[i] > totals[best]) best = i;
    }
    return {term_name(Term(best)), dram_bytes};
}

}  // namespace

void write_predictions(const std::string &path, const std::vector<MeasuredPipeline> &data,
                       const std::vector<SchedulePrediction> &predictions, bool held_out) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("predictions " + path + ": cannot open the file for writing");
    for (const SchedulePrediction &p : predictions) {
        const MeasuredPipeline &pipeline = data.at(p.pipeline);
        const MeasuredSchedule &schedule = pipeline.schedules.at(p.schedule);
        const auto [dominant, dram_bytes] = dominant_term(schedule.stages, pipeline.spec);
        out << Json{{"gpu", pipeline.spec.name},
                    {"app", pipeline.name},
                    {"algorithm", pipeline.algorithm_key()},
                    {"schedule", schedule.label},
                    {"variant", schedule.variant},
                    {"held_out", held_out},
                    {"measured_s", p.measured},
                    {"learned_s", p.learned},
                    {"analytic_s", p.analytic},
                    {"dram_bytes", dram_bytes},
                    {"dominant_term", dominant}}
                   .dump()
            << "\n";
    }
    if (!out.flush()) throw std::runtime_error("predictions " + path + ": write failed");
}

std::vector<SchedulePrediction> predict_all(const std::vector<MeasuredPipeline> &data, const Weights &weights) {
    std::vector<SchedulePrediction> out;
    for (size_t p = 0; p < data.size(); ++p) {
        const LearnedCostModel learned(data[p].spec, weights, "the new weights");
        const AnalyticModel analytic(data[p].spec);
        for (size_t s = 0; s < data[p].schedules.size(); ++s) {
            const ScheduleFeatures &stages = data[p].schedules[s].stages;
            out.push_back({p, s, data[p].schedules[s].seconds, learned.predict({&stages})[0],
                           analytic.predict({&stages})[0]});
        }
    }
    return out;
}

std::vector<std::string> plot_predictions(const std::string &predictions_path, const std::string &prefix) {
    const char *chosen = std::getenv("STRATA_PYTHON");
    const std::string python = chosen && *chosen ? chosen : STRATA_PLOT_PYTHON;
    // A copy of the tool run away from its build (a GPU machine) finds the script through the environment.
    const char *moved_script = std::getenv("STRATA_PLOT_SCRIPT");
    const std::string script = moved_script && *moved_script ? moved_script : STRATA_PLOT_PREDICTIONS_SCRIPT;
    if (::access(script.c_str(), R_OK) != 0) return {"plots: skipped (" + script + " is not here)"};

    const std::vector<std::string> args = {python, script, predictions_path, prefix};
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t child = 0;
    if (::posix_spawnp(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
        return {"plots: skipped (cannot run " + python + "; set STRATA_PYTHON to a Python with matplotlib)"};
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return {"plots: skipped (lost the plotting process)"};
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return {"plots: skipped (" + python + " " + script + " failed; it needs matplotlib: set STRATA_PYTHON)"};
    }
    return {};  // the script names what it wrote
}

}  // namespace strata::costmodel
