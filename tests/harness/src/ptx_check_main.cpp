// strata-ptx-check: the ptxas check of one CUDA build of an app variant.
//
// Extracts the PTX embedded in the object, runs `ptxas -arch=<arch> -v` on
// it, joins ptxas's per-kernel resources with the launch parameters of the
// lowered statement, fails on a ptxas error or a kernel that cannot launch
// (too many threads, registers or shared memory per block, too many blocks
// along y or z), and writes a JSON record. Exits 77 (CTest's skip code) when ptxas is not available.
//
// With the variant's lowered-code report (--lowered-report), each kernel's
// row carries the register count the cost model priced beside ptxas's; with
// --no-spills, a kernel that spills fails the check: the model prices no
// local-memory traffic, so a schedule it chose must not need any; with
// --no-local-arrays, nor may a kernel keep an array on its stack (a
// per-thread buffer placed in registers but indexed at run time). The
// fuzz campaign leaves that one out: CUDA's trigonometric slow paths keep
// a small array there by design.
#include "strata/harness/PtxResources.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;
using strata::harness::KernelLaunch;
using strata::harness::KernelResources;

namespace {

constexpr int kSkipped = 77;

struct Options {
    std::string app, variant, object, stmt, ptxas, arch = "sm_80", json, generate_report, lowered_report,
        expected_failure;
    bool expect_failure = false, no_spills = false, no_local_arrays = false;
    int64_t max_threads_per_block = 1024;
    int64_t max_registers_per_block = 65536;
    int64_t max_shared_bytes = 48 * 1024;  // without opt-in: Halide 21's CUDA runtime never opts in
    int64_t max_grid[3] = {2147483647, 65535, 65535};
};

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string flag = argv[i];
        if (flag == "--no-spills") {
            o.no_spills = true;
            continue;
        }
        if (flag == "--no-local-arrays") {
            o.no_local_arrays = true;
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
        std::string value = argv[++i];
        if (flag == "--app") o.app = value;
        else if (flag == "--variant") o.variant = value;
        else if (flag == "--object") o.object = value;
        else if (flag == "--stmt") o.stmt = value;
        else if (flag == "--ptxas") o.ptxas = value;
        else if (flag == "--arch") o.arch = value;
        else if (flag == "--json") o.json = value;
        else if (flag == "--generate-report") o.generate_report = value;
        else if (flag == "--lowered-report") o.lowered_report = value;
        else if (flag == "--expect-failure") o.expect_failure = true, o.expected_failure = value;
        else throw std::invalid_argument("unknown option " + flag);
    }
    if (o.object.empty() || o.stmt.empty() || o.json.empty()) {
        throw std::invalid_argument("--object, --stmt and --json are required");
    }
    return o;
}

// Runs a command, returning its exit status and combined output.
int run(const std::string &command, std::string &output) {
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return -1;
    std::array<char, 4096> chunk;
    size_t n;
    while ((n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) output.append(chunk.data(), n);
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool generator_failed(const std::string &report_path) {
    if (report_path.empty() || !fs::exists(report_path)) return false;
    auto report = nlohmann::json::parse(read_file(report_path), nullptr, false);
    return !report.is_discarded() && report.value("status", "") != "ok";
}

// Registers per thread the cost model priced, by stage name of each
// kernel's root ("cost_x.s1"); empty when the report is missing or unreadable
// (a variant Strata did not price, or a generator that failed).
std::map<std::string, double> read_priced_registers(const std::string &report_path) {
    std::map<std::string, double> priced;
    if (report_path.empty() || !fs::exists(report_path)) return priced;
    auto report = nlohmann::json::parse(read_file(report_path), nullptr, false);
    if (report.is_discarded()) return priced;
    for (const auto &k : report.value("kernels", nlohmann::json::array())) {
        if (k.contains("priced_registers") && k["priced_registers"].is_number()) {
            priced[k.value("name", "")] = k["priced_registers"].get<double>();
        }
    }
    return priced;
}

std::string optional_string(const std::optional<int64_t> &v) {
    return v ? std::to_string(*v) : "?";
}

nlohmann::json optional_json(const std::optional<int64_t> &v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

int finish(const Options &o, nlohmann::json report, bool passed, const std::string &message) {
    report["status"] = passed ? "passed" : report.value("status", "failed");
    report["message"] = message;
    if (o.expect_failure) report["known_failure"] = o.expected_failure;
    std::ofstream(o.json) << report.dump(2) << "\n";
    std::cout << o.app << "/" << o.variant << " ptxas: " << report["status"].get<std::string>();
    if (!message.empty()) std::cout << ": " << message;
    std::cout << "\n";
    if (o.expect_failure) {
        if (passed) {
            std::cout << "UNEXPECTED PASS: recorded as failing (" << o.expected_failure << "); update apps/" << o.app
                      << "/CMakeLists.txt\n";
            return 1;
        }
        std::cout << "KNOWN FAILURE reproduced: " << o.expected_failure << "\n";
        return 0;
    }
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "strata-ptx-check: " << e.what() << "\n";
        return 2;
    }
    nlohmann::json report = {{"app", o.app}, {"variant", o.variant}, {"check", "ptxas"}, {"arch", o.arch}};
    if (generator_failed(o.generate_report)) {
        report["status"] = "generator-failed";
        return finish(o, report, false, "the generator failed for this variant; see " + o.generate_report);
    }
    if (o.ptxas.empty() || !fs::exists(o.ptxas)) {
        std::cout << "SKIPPED: ptxas not found (install the CUDA toolkit or pass -DSTRATA_PTXAS=...)\n";
        report["status"] = "skipped";
        std::ofstream(o.json) << report.dump(2) << "\n";
        return kSkipped;
    }

    std::vector<std::string> modules;
    std::string stmt;
    try {
        modules = strata::harness::extract_ptx_modules(read_file(o.object));
        stmt = read_file(o.stmt);
    } catch (const std::exception &e) {
        report["status"] = "error";
        return finish(o, report, false, e.what());
    }
    if (modules.empty()) {
        report["status"] = "no-kernels";
        return finish(o, report, false, "no PTX in " + o.object + ": the schedule launches no CUDA kernel");
    }

    std::vector<KernelResources> kernels;
    std::string ptxas_log;
    for (size_t i = 0; i < modules.size(); ++i) {
        fs::path ptx_path = fs::path(o.json).replace_extension(modules.size() > 1 ? std::to_string(i) + ".ptx" : "ptx");
        std::ofstream(ptx_path) << modules[i];
        std::string output;
        int status = run("'" + o.ptxas + "' -arch=" + o.arch + " -v '" + ptx_path.string() + "' -o /dev/null", output);
        ptxas_log += output;
        if (status != 0) {
            report["status"] = "ptxas-error";
            report["ptxas_output"] = output;
            std::cout << output;
            return finish(o, report, false, "ptxas rejected " + ptx_path.string());
        }
        for (auto &k : strata::harness::parse_ptxas_verbose(output)) kernels.push_back(k);
    }

    const auto launches = strata::harness::parse_cuda_launches(stmt);
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::string> problems, spill_problems;
    int max_registers = 0;
    int64_t spill_bytes = 0, max_shared = 0;
    const std::map<std::string, double> priced = read_priced_registers(o.lowered_report);
    std::vector<std::string> priced_stages;
    for (const auto &[stage, registers] : priced) priced_stages.push_back(stage);
    std::printf("  %-48s %5s %6s %7s %7s %9s %9s\n", "kernel", "regs", "priced", "threads", "spills", "smem(st)",
                "smem(dyn)");
    for (const KernelResources &k : kernels) {
        KernelLaunch launch;
        if (auto it = launches.find(k.name); it != launches.end()) launch = it->second;
        const auto threads = launch.threads_per_block();
        const int64_t spills = k.spill_store_bytes + k.spill_load_bytes;
        const std::optional<int64_t> shared =
            launch.dynamic_shared_bytes ? std::optional<int64_t>(*launch.dynamic_shared_bytes + k.static_shared_bytes)
                                        : std::nullopt;
        const std::optional<std::string> stage = strata::harness::stage_of_kernel(k.name, priced_stages);
        const std::optional<int64_t> priced_registers =
            stage ? std::optional<int64_t>(int64_t(priced.at(*stage))) : std::nullopt;
        std::printf("  %-48s %5d %6s %7s %7lld %9lld %9s\n", k.name.c_str(), k.registers,
                    optional_string(priced_registers).c_str(), optional_string(threads).c_str(), (long long)spills,
                    (long long)k.static_shared_bytes, optional_string(launch.dynamic_shared_bytes).c_str());
        rows.push_back({{"name", k.name},
                        {"stage", stage ? nlohmann::json(*stage) : nlohmann::json(nullptr)},
                        {"registers", k.registers},
                        {"priced_registers", optional_json(priced_registers)},
                        {"barriers", k.barriers},
                        {"stack_frame_bytes", k.stack_frame_bytes},
                        {"spill_store_bytes", k.spill_store_bytes},
                        {"spill_load_bytes", k.spill_load_bytes},
                        {"static_shared_bytes", k.static_shared_bytes},
                        {"dynamic_shared_bytes", optional_json(launch.dynamic_shared_bytes)},
                        {"threads_per_block", optional_json(threads)},
                        {"grid", {optional_json(launch.blocks[0]), optional_json(launch.blocks[1]),
                                  optional_json(launch.blocks[2])}}});
        max_registers = std::max(max_registers, k.registers);
        spill_bytes += spills;
        max_shared = std::max(max_shared, shared.value_or(k.static_shared_bytes));
        if (o.no_spills && spills > 0) {
            spill_problems.push_back(k.name + " spills " + std::to_string(spills) + " bytes to local memory (ptxas: " +
                               std::to_string(k.registers) + " registers" +
                               (priced_registers ? "; priced " + std::to_string(*priced_registers) : "") + ")");
        }
        if (o.no_local_arrays && spills == 0 && k.stack_frame_bytes > 0) {
            spill_problems.push_back(k.name + " keeps a " + std::to_string(k.stack_frame_bytes) +
                                     "-byte array in local memory (a per-thread buffer indexed at run time)");
        }
        if (threads && *threads > o.max_threads_per_block) {
            problems.push_back(k.name + " launches " + std::to_string(*threads) + " threads per block");
        }
        if (threads && *threads * k.registers > o.max_registers_per_block) {
            problems.push_back(k.name + " needs " + std::to_string(*threads * k.registers) +
                               " registers per block (" + std::to_string(k.registers) + " x " +
                               std::to_string(*threads) + " threads)");
        }
        if (shared && *shared > o.max_shared_bytes) {
            problems.push_back(k.name + " needs " + std::to_string(*shared) + " bytes of shared memory per block");
        }
        for (int d = 0; d < 3; ++d) {
            if (launch.blocks[d] && *launch.blocks[d] > o.max_grid[d]) {
                problems.push_back(k.name + " launches " + std::to_string(*launch.blocks[d]) + " blocks along " +
                                   "xyz"[d]);
            }
        }
    }
    report["kernels"] = rows;
    report["max_registers"] = max_registers;
    report["spill_bytes"] = spill_bytes;
    report["max_shared_bytes"] = max_shared;
    // A kernel that cannot launch is the graver fault; one that spills
    // launches, slower than priced.
    const bool over_limits = !problems.empty();
    problems.insert(problems.end(), spill_problems.begin(), spill_problems.end());
    if (!problems.empty()) {
        report["status"] = over_limits ? "over-limits" : "spills";
        std::string message;
        for (const auto &p : problems) message += (message.empty() ? "" : "; ") + p;
        return finish(o, report, false, message);
    }
    return finish(o, report, true, "");
}
