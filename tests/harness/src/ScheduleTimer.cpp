// ScheduleTimer: a Halide autoscheduler plugin, registered as "Timed", that
// runs another registered autoscheduler and records how long it took.
//
// Generators do not report how long their autoscheduler ran, and a whole
// generator's time mixes scheduling with lowering and code generation. The
// verification build loads this plugin beside the real one and selects it:
//
//   app.generator -p libautoschedule_mullapudi2016.so,libstrata_schedule_timer.so autoscheduler=Timed
//       autoscheduler.inner=Mullapudi2016 autoscheduler.report=out.json
//       autoscheduler.experimental_gpu_schedule=1
//
// Every key but `inner` and `report` goes to the inner autoscheduler as it
// is, and it schedules the same pipeline for the same target: the schedule
// is exactly the inner autoscheduler's. The report holds the
// scheduler's name, its wall time, the number of Funcs in the pipeline, and
// the error message if it failed.
#include "Halide.h"

#include <chrono>
#include <fstream>
#include <map>
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

std::string take_key(std::map<std::string, std::string> &keys, const std::string &key) {
    auto it = keys.find(key);
    if (it == keys.end() || it->second.empty()) {
        throw CompileError("The Timed autoscheduler needs autoscheduler." + key + "\n");
    }
    std::string value = it->second;
    keys.erase(it);
    return value;
}

void timed_autoschedule(const Pipeline &pipeline, const Target &target, const AutoschedulerParams &params,
                        AutoSchedulerResults *results) {
    std::map<std::string, std::string> inner_keys = params.extra;
    const std::string inner = take_key(inner_keys, "inner");
    const std::string report = take_key(inner_keys, "report");
    const AutoschedulerParams inner_params(inner, inner_keys);
    const int funcs = count_funcs(pipeline);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    try {
        *results = pipeline.apply_autoscheduler(target, inner_params);
    } catch (const Error &e) {
        write_report(report, inner, elapsed(), funcs, e.what());
        throw;
    } catch (const std::exception &e) {
        write_report(report, inner, elapsed(), funcs, e.what());
        throw;
    }
    write_report(report, inner, elapsed(), funcs, "");
}

struct RegisterTimed {
    RegisterTimed() { Pipeline::add_autoscheduler("Timed", timed_autoschedule); }
} register_timed;

}  // namespace
