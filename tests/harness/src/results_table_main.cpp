// strata-results-table: the demo's summary of a verification run — one row
// per app and schedule variant, joined from the JSON records that the
// generation step, the PoCL check, the ptxas check and the lowered-code
// check (what Halide built against what Strata priced, with the largest
// redundant-work factor and any per-block or per-thread buffer Halide put
// in global memory) leave in a results directory.
//
// usage: strata-results-table RESULTS_DIR [--markdown]
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read_json(const fs::path &path) {
    std::ifstream in(path);
    if (!in) return json();
    json j = json::parse(in, nullptr, false);
    return j.is_discarded() ? json() : j;
}

std::string format_seconds(double s) {
    char text[32];
    if (s < 1) std::snprintf(text, sizeof text, "%.0f ms", s * 1000);
    else std::snprintf(text, sizeof text, "%.2f s", s);
    return text;
}

std::string check_cell(const json &check) {
    if (check.is_null()) return "not run";
    const std::string status = check.value("status", "?");
    std::string cell;
    if (status == "passed" || status == "passed-unoptimized") {
        // Right only with PoCL's optimizer off: said in the cell (AppCheck.h).
        char text[48];
        std::snprintf(text, sizeof text, status == "passed" ? "pass (%.1e)" : "pass with PoCL -O0 (%.1e)",
                      check.value("max_rel_error", 0.0));
        cell = text;
    } else {
        cell = "FAIL: " + status;
    }
    if (check.contains("known_failure")) cell += " [known]";
    return cell;
}

// The lowered-code check's cell: its verdict, then the worst redundant-work
// factor (points computed / points needed) and its Func.
std::string lowered_cell(const json &record) {
    if (record.is_null()) return "not run";
    const std::string status = record.value("status", "?");
    std::string cell = status == "passed" ? "pass"
                       : status == "mismatch" ? std::to_string(record.value("mismatches", 0)) + " off"
                                              : "FAIL: " + status;
    if (record.contains("known_failure")) cell += " [known]";
    if (record.contains("max_redundant_work") && record.value("max_redundant_work", 0.0) > 0) {
        char factor[64];
        std::snprintf(factor, sizeof factor, ", x%.2f", record.value("max_redundant_work", 0.0));
        cell += factor + std::string(" ") + record.value("max_redundant_work_func", "");
    }
    return cell;
}

std::string global_buffers_cell(const json &record) {
    if (record.is_null() || !record.contains("global_member_buffers")) return "-";
    return std::to_string(record["global_member_buffers"].size());
}

struct Row {
    std::string app, variant, stages, schedule_time, pocl, registers, spills, shared, lowered, global_buffers;
};

}  // namespace

int main(int argc, char **argv) {
    CLI::App cli{"The demo's table of results: one row per app and schedule variant."};
    fs::path dir;
    bool markdown = false;
    cli.add_option("results_dir", dir, "directory of the JSON records a verification run left")
        ->required()
        ->check(CLI::ExistingDirectory);
    cli.add_flag("--markdown", markdown, "print a Markdown table");
    CLI11_PARSE(cli, argc, argv);

    // <app>.<variant>.{opencl,ptxas}.json name the rows.
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto &entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        for (const char *suffix : {".opencl.json", ".ptxas.json"}) {
            const std::string s = suffix;
            if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
                const std::string stem = name.substr(0, name.size() - s.size());
                const size_t dot = stem.rfind('.');
                if (dot != std::string::npos) keys.insert({stem.substr(0, dot), stem.substr(dot + 1)});
            }
        }
    }
    static const std::map<std::string, int> kVariantOrder = {
        {"manual", 0}, {"li2018", 1}, {"anderson2021", 2}, {"mullapudi2016", 3}, {"strata", 4}};
    std::vector<std::pair<std::string, std::string>> ordered(keys.begin(), keys.end());
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) {
        if (a.first != b.first) return a.first < b.first;
        auto rank = [](const std::string &v) {
            auto it = kVariantOrder.find(v);
            return it == kVariantOrder.end() ? 99 : it->second;
        };
        return rank(a.second) < rank(b.second);
    });

    std::map<std::string, std::string> stages_by_app;
    for (const auto &[app, variant] : ordered) {
        json schedule = read_json(dir / (app + "_" + variant + "_cuda.schedule.json"));
        if (schedule.contains("stages")) stages_by_app[app] = std::to_string(schedule["stages"].get<int>());
    }

    std::vector<Row> rows;
    std::vector<std::string> known_failures;  // "app variant check: reason", listed under the table
    for (const auto &[app, variant] : ordered) {
        Row row{app, variant};
        row.stages = stages_by_app.count(app) ? stages_by_app[app] : "?";
        json schedule = read_json(dir / (app + "_" + variant + "_cuda.schedule.json"));
        json generate = read_json(dir / (app + "_" + variant + "_cuda.generate.json"));
        if (variant == "manual") row.schedule_time = "-";
        else if (generate.value("status", "") == "failed") row.schedule_time = "generator failed";
        else if (schedule.contains("schedule_seconds")) row.schedule_time = format_seconds(schedule["schedule_seconds"]);
        else row.schedule_time = "?";
        row.pocl = check_cell(read_json(dir / (app + "." + variant + ".opencl.json")));
        json ptxas = read_json(dir / (app + "." + variant + ".ptxas.json"));
        json opencl = read_json(dir / (app + "." + variant + ".opencl.json"));
        json lowered = read_json(dir / (app + "." + variant + ".lowered-check.json"));
        row.lowered = variant == "manual" ? "-" : lowered_cell(lowered);
        row.global_buffers = global_buffers_cell(lowered);
        // Shared memory comes from the launches of the OpenCL run: Halide sizes it at run time.
        row.shared = opencl.contains("max_shared_bytes") ? std::to_string(opencl["max_shared_bytes"].get<int64_t>()) : "?";
        if (ptxas.value("status", "") == "passed" || ptxas.contains("max_registers")) {
            row.registers = std::to_string(ptxas.value("max_registers", 0));
            row.spills = std::to_string(ptxas.value("spill_bytes", 0));
            if (ptxas.value("status", "") != "passed") row.registers += " (" + ptxas.value("status", "") + ")";
        } else {
            row.registers = ptxas.is_null() ? "not run" : ptxas.value("status", "?");
            row.spills = "-";
        }
        for (const auto &[check, record] :
             {std::pair{"PoCL", opencl}, std::pair{"ptxas", ptxas}, std::pair{"lowered", lowered}}) {
            if (record.contains("known_failure")) {
                known_failures.push_back(app + " " + variant + " " + check + ": " +
                                         record["known_failure"].get<std::string>());
            }
        }
        rows.push_back(row);
    }

    const std::vector<std::string> header = {"app",           "variant",
                                             "stages",        "schedule time",
                                             "PoCL check (max rel err)", "max regs",
                                             "spill bytes",   "max smem bytes",
                                             "lowered vs priced (max redundant work)", "global member buffers"};
    std::vector<size_t> width(header.size());
    auto cells = [](const Row &r) {
        return std::vector<std::string>{r.app,    r.variant, r.stages,  r.schedule_time, r.pocl,
                                        r.registers, r.spills, r.shared, r.lowered,       r.global_buffers};
    };
    for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    for (const Row &r : rows) {
        auto c = cells(r);
        for (size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
    }
    auto print = [&](const std::vector<std::string> &c) {
        std::string line = markdown ? "| " : "";
        for (size_t i = 0; i < c.size(); ++i) {
            line += c[i] + std::string(width[i] - c[i].size(), ' ');
            line += markdown ? " | " : "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        std::cout << line << "\n";
    };
    print(header);
    std::vector<std::string> rule;
    for (size_t w : width) rule.push_back(std::string(w, '-'));
    print(rule);
    for (const Row &r : rows) print(cells(r));
    if (!known_failures.empty()) {
        std::cout << "\n[known]: failures of Halide's autoschedulers, recorded (the check passes while they reproduce):\n";
        for (const std::string &line : known_failures) std::cout << (markdown ? "- " : "  ") << line << "\n";
    }
    return 0;
}
