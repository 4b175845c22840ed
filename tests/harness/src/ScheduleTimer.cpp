// ScheduleTimer: a Halide autoscheduler plugin, registered as "Timed", that
// runs another registered autoscheduler and records how long it took.
//
// Generators do not report how long their autoscheduler ran, and a whole
// generator's time mixes scheduling with lowering and code generation. The
// verification build loads this plugin beside the real one and selects it:
//
//   STRATA_TIMED_SCHEDULER=Li2018 STRATA_TIMED_REPORT=out.json
//   app.generator -p libautoschedule_li2018.so,libstrata_schedule_timer.so -s Timed ...
//
// The schedule is exactly the inner autoscheduler's: the same function is
// called with the same arguments. The report holds the scheduler's name, its
// wall time, and the number of Funcs in the pipeline.
#include "Halide.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>

namespace {

using namespace Halide;

int count_funcs(const Pipeline &pipeline) {
    std::set<std::string> names;
    for (const Func &output : pipeline.outputs()) {
        for (const auto &entry : Internal::find_transitive_calls(output.function())) names.insert(entry.first);
    }
    return int(names.size());
}

void write_report(const std::string &path, const std::string &scheduler, double seconds, int funcs,
                  const std::string &error) {
    std::ofstream out(path);
    out << "{\"scheduler\": \"" << scheduler << "\", \"schedule_seconds\": " << seconds
        << ", \"stages\": " << funcs << ", \"error\": \"";
    for (char c : error) {
        if (c == '"' || c == '\\') out << '\\';
        out << (c == '\n' ? ' ' : c);
    }
    out << "\"}\n";
}

void timed_autoschedule(const Pipeline &pipeline, const Target &target, const MachineParams &params,
                        AutoSchedulerResults *results) {
    const char *inner_name = std::getenv("STRATA_TIMED_SCHEDULER");
    const char *report = std::getenv("STRATA_TIMED_REPORT");
    if (!inner_name || !*inner_name) {
        throw CompileError("The Timed autoscheduler needs STRATA_TIMED_SCHEDULER set to the autoscheduler to run.\n");
    }
    Pipeline inner_pipeline = pipeline;
    const int funcs = count_funcs(pipeline);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    try {
        *results = inner_pipeline.auto_schedule(inner_name, target, params);
    } catch (const std::exception &e) {
        if (report) write_report(report, inner_name, elapsed(), funcs, e.what());
        throw;
    }
    if (report) write_report(report, inner_name, elapsed(), funcs, "");
}

struct RegisterTimed {
    RegisterTimed() { Pipeline::add_autoscheduler("Timed", timed_autoschedule); }
} register_timed;

}  // namespace
