// strata-lowered-check: one app variant's lowered-code check as a test.
// The generator (through Strata's lowered_check key, see
// autoscheduler/src/LoweredCheck.h) leaves a JSON comparison of what Halide
// built with what Strata's cost model priced; this tool prints it (per
// kernel: blocks, threads, points per Func, global bytes, member
// allocations; per Func: the redundant-work factor) and passes or fails on
// it, or on a recorded known failure, as the PoCL and ptxas checks do.
// With --record it also writes the verdict, the largest redundant-work
// factor and the per-block or per-thread buffers Halide put in global memory
// (the demo's table reads it).
//
// usage: strata-lowered-check --app A --variant V --report FILE.json
//            [--generate-report FILE.json] [--expect-failure REASON]
//            [--record FILE.json]
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

struct Options {
    std::string app, variant, report, generate_report, expected_failure, record;
    bool expect_failure = false;
};

Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
        const std::string value = argv[++i];
        if (flag == "--app") o.app = value;
        else if (flag == "--variant") o.variant = value;
        else if (flag == "--report") o.report = value;
        else if (flag == "--generate-report") o.generate_report = value;
        else if (flag == "--expect-failure") o.expect_failure = true, o.expected_failure = value;
        else if (flag == "--record") o.record = value;
        else throw std::invalid_argument("unknown option " + flag);
    }
    if (o.report.empty()) throw std::invalid_argument("--report is required");
    return o;
}

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    if (!in) return nlohmann::json();
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
}

void print(const nlohmann::json &report) {
    for (const auto &k : report.value("kernels", nlohmann::json::array())) {
        std::cout << "  kernel " << k.value("name", "?");
        if (k.contains("blocks")) {
            std::cout << ": blocks " << k["blocks"]["lowered"] << " (priced " << k["blocks"]["priced"] << "), threads "
                      << k["threads_per_block"]["lowered"] << " (priced " << k["threads_per_block"]["priced"] << ")";
        }
        std::cout << "\n";
        const nlohmann::json points = k.value("points", nlohmann::json::object());
        for (const auto &[func, count] : points.items()) {
            std::cout << "    " << func << ": " << count["lowered"] << " points (priced " << count["priced"] << ")\n";
        }
    }
    for (const auto &f : report.value("funcs", nlohmann::json::array())) {
        char factor[32];
        std::snprintf(factor, sizeof factor, "%.3f", f.value("redundant_work", 0.0));
        std::cout << "  " << f.value("func", "?") << ": redundant work " << factor << "\n";
    }
    for (const auto &m : report.value("mismatches", nlohmann::json::array())) std::cout << "  MISMATCH " << m.get<std::string>() << "\n";
}

// Buffers of Funcs priced per block or per thread that Halide could not
// give a constant size: it allocates them in global memory, inside the
// kernel's loops or lifted out of them.
nlohmann::json global_member_buffers(const nlohmann::json &report) {
    nlohmann::json buffers = nlohmann::json::array();
    for (const auto &k : report.value("kernels", nlohmann::json::array())) {
        for (const auto &a : k.value("allocations", nlohmann::json::array())) {
            const std::string memory = a.value("memory", "");
            if (a.value("bytes", -1) < 0 || (memory != "Register" && memory != "GPUShared")) {
                buffers.push_back(k.value("name", "?") + ": " + a.value("func", "?"));
            }
        }
    }
    for (const auto &a : report.value("allocations_outside_kernels", nlohmann::json::array())) {
        if (a.contains("priced_member_of")) {
            buffers.push_back(a["priced_member_of"].get<std::string>() + ": " + a.value("func", "?") + " (outside it)");
        }
    }
    return buffers;
}

// The verdict and the report's figures that the demo's table shows.
void write_record(const Options &o, const std::string &status, const std::string &message,
                  const nlohmann::json &report) {
    nlohmann::json record = {{"app", o.app}, {"variant", o.variant}, {"check", "lowered"},
                             {"status", status}, {"message", message}};
    if (!report.is_null()) {
        record["mismatches"] = report.value("mismatches", nlohmann::json::array()).size();
        double worst = 0;
        std::string worst_func;
        for (const auto &f : report.value("funcs", nlohmann::json::array())) {
            if (f.value("redundant_work", 0.0) > worst) worst = f["redundant_work"], worst_func = f.value("func", "?");
        }
        record["max_redundant_work"] = worst;
        record["max_redundant_work_func"] = worst_func;
        record["global_member_buffers"] = global_member_buffers(report);
    }
    if (o.expect_failure) record["known_failure"] = o.expected_failure;
    std::ofstream out(o.record);
    if (!out) throw std::runtime_error("cannot write " + o.record);
    out << record.dump(2) << "\n";
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << "strata-lowered-check: " << e.what() << "\n";
        return 2;
    }
    std::string status, message;
    const nlohmann::json generate = read_json(o.generate_report);
    const nlohmann::json report = read_json(o.report);
    if (!generate.is_null() && generate.value("status", "") != "ok") {
        status = "generator-failed";
        message = "the generator failed for this variant; see " + o.generate_report;
    } else if (report.is_null()) {
        status = "no-report";
        message = "no lowered-code report at " + o.report + " (was the schedule priced?)";
    } else {
        print(report);
        status = report.value("status", "?") == "pass" ? "passed" : "mismatch";
        if (status != "passed") message = std::to_string(report["mismatches"].size()) + " counts differ";
    }
    std::cout << o.app << "/" << o.variant << " lowered code against features: " << status
              << (message.empty() ? "" : ": " + message) << "\n";
    const bool passed = status == "passed";
    if (!o.record.empty()) {
        try {
            write_record(o, status, message, report);
        } catch (const std::exception &e) {
            std::cerr << "strata-lowered-check: " << e.what() << "\n";
            return 2;
        }
    }
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
