// strata-gpu-spec: prints the GPU spec Strata schedules a target for, chosen
// exactly as the plugin chooses it (autoscheduler keys and STRATA_GPU /
// STRATA_GPU_SPEC first, else the target's CUDA capability, else the
// default), as JSON or one field. Build scripts read Halide's own
// autoschedulers' machine numbers from it (Anderson2021's `parallelism` is
// the SM count), so that every scheduler in a comparison targets one GPU.
//
// usage: strata-gpu-spec [--target T] [--field NAME] [--list] [key=value...]
//   strata-gpu-spec --target host-cuda-cuda_capability_80 --field sm_count   → 108
//   strata-gpu-spec gpu=h200                                                   → the H200 spec as JSON
#include "Autoscheduler.h"
#include "Errors.h"
#include "Params.h"

#include "strata/costmodel/CommandLine.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

namespace {

using namespace strata;

constexpr const char *kUsage =
    "usage: strata-gpu-spec [--target T] [--field NAME] [--list] [key=value...]\n"
    "  --target T     Halide target string (default host-cuda); its cuda_capability_NN picks the GPU\n"
    "  --field NAME   print one field of the spec (e.g. sm_count) instead of the whole JSON\n"
    "  --list         print the names of the built-in GPUs\n"
    "  key=value      Strata parameters, as autoscheduler.<key>=<value> would give them (e.g. gpu=h200)\n";

int run(int argc, char **argv) {
    std::string target = "host-cuda", field;
    std::map<std::string, std::string> keys;
    for (costmodel::CommandLine args(argc, argv); args.next();) {
        const std::string &arg = args.current();
        if (arg == "--target") {
            target = args.value();
        } else if (arg == "--field") {
            field = args.value();
        } else if (arg == "--list") {
            for (const costmodel::GpuSpec &spec : costmodel::GpuSpec::known()) {
                std::cout << spec.name << "\t" << spec.marketing_name << "\tsm_" << spec.compute_capability << "\n";
            }
            return 0;
        } else if (arg == "-h" || arg == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (const size_t eq = arg.find('='); eq != std::string::npos && eq > 0 && arg[0] != '-') {
            keys[arg.substr(0, eq)] = arg.substr(eq + 1);
        } else {
            throw costmodel::UsageError("unknown argument '" + arg + "'");
        }
    }
    const autoscheduler::Params params = autoscheduler::Params::resolve(keys);
    const costmodel::GpuSpec spec = autoscheduler::select_gpu_spec(params, Halide::Target(target));
    const nlohmann::json json = nlohmann::json::parse(spec.to_json_text());
    if (field.empty()) {
        std::cout << json.dump(2) << "\n";
    } else if (json.contains(field)) {
        const nlohmann::json &value = json[field];
        std::cout << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
    } else {
        throw costmodel::UsageError("'" + field + "' is not a GPU spec field");
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const costmodel::UsageError &e) {
        std::cerr << "strata-gpu-spec: " << e.what() << "\n" << kUsage;
        return 2;
    } catch (...) {
        std::cerr << "strata-gpu-spec: " << autoscheduler::current_exception_message() << "\n";
        return 1;
    }
}
