// strata-fuzz: random pipeline descriptions from the command line.
//
//   strata-fuzz describe --seed N [--budget B] [-o FILE]   draw one (JSON to FILE or stdout)
//   strata-fuzz show FILE                                  one line per stage
//   strata-fuzz evaluate FILE [--input-seed N]             run the interpreter on random inputs
//   strata-fuzz minimize FILE --test 'CMD {}' -o OUT [--max-tests N]
//                                                          shrink while CMD still exits 0
#include "strata/fuzz/DescriptionJson.h"
#include "strata/fuzz/Minimizer.h"
#include "strata/fuzz/RandomPipeline.h"
#include "strata/fuzz/TensorBuffer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using namespace strata::fuzz;

namespace {

constexpr int kDefaultBudget = 12;

struct Arguments {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;

    const std::string &option(const std::string &key, const std::string &fallback) const {
        auto it = options.find(key);
        return it == options.end() ? fallback : it->second;
    }
    const std::string &required(const std::string &key) const {
        auto it = options.find(key);
        if (it == options.end()) throw std::invalid_argument("missing " + key);
        return it->second;
    }
};

Arguments parse(int argc, char **argv) {
    Arguments a;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
            if (i + 1 >= argc) throw std::invalid_argument("missing value after " + arg);
            a.options[arg] = argv[++i];
        } else {
            a.positional.push_back(arg);
        }
    }
    return a;
}

uint64_t parse_unsigned(const std::string &text, const std::string &what) {
    size_t used = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text.size() || text.empty() || text[0] == '-') {
        throw std::invalid_argument(what + " must be a non-negative integer, got '" + text + "'");
    }
    return v;
}

const std::string &single_file(const Arguments &a) {
    if (a.positional.size() != 1) throw std::invalid_argument("give one description file");
    return a.positional[0];
}

int describe(const Arguments &a) {
    const uint64_t seed = parse_unsigned(a.required("--seed"), "--seed");
    const int budget = int(parse_unsigned(a.option("--budget", std::to_string(kDefaultBudget)), "--budget"));
    const Description d = draw_random_pipeline(seed, budget);
    const std::string out = a.option("-o", "");
    if (out.empty())
        std::cout << to_json(d).dump(1) << "\n";
    else
        write_description(d, out);
    return 0;
}

int show(const Arguments &a) {
    const Description d = read_description(single_file(a));
    for (const Stage &s : d.stages) {
        std::string types;
        for (ScalarType t : s.types) types += std::string(types.empty() ? "" : ",") + name_of(t);
        std::string reads;
        for (int o : operands_of(s.op)) reads += " " + d.stages[o].name;
        std::printf("%-22s %-10s %-16s %-22s%s\n", s.name.c_str(), op_name(s.op), types.c_str(),
                    to_string(s.shape).c_str(), reads.c_str());
    }
    std::string outputs;
    for (int o : d.outputs) outputs += " " + d.stages[o].name;
    std::printf("outputs:%s\n", outputs.c_str());
    return 0;
}

int evaluate_command(const Arguments &a) {
    const Description d = read_description(single_file(a));
    uint64_t seed = parse_unsigned(a.option("--input-seed", "1"), "--input-seed");
    std::map<std::string, Tensor> inputs;
    for (const Stage &s : d.stages) {
        const auto *input = std::get_if<InputOp>(&s.op);
        if (!input) continue;
        Halide::Runtime::Buffer<void> buffer(runtime_type(input->type),
                                             std::vector<int>(input->shape.begin(), input->shape.end()));
        strata::runtime::fill_uniform(buffer, fill_range(*input), seed++);
        inputs[s.name] = tensor_from_buffer(buffer, input->type, input->shape);
    }
    const auto start = std::chrono::steady_clock::now();
    const std::vector<StageValue> values = evaluate(d, inputs);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < d.stages.size(); ++i) {
        for (const Tensor &t : values[i]) {
            double lo = INFINITY, hi = -INFINITY;
            for (int64_t k = 0; k < t.size(); ++k) lo = std::min(lo, t[k]), hi = std::max(hi, t[k]);
            std::printf("%-22s %-8s %-22s [%g, %g]\n", d.stages[i].name.c_str(), name_of(t.type()),
                        to_string(t.shape()).c_str(), lo, hi);
        }
    }
    std::printf("evaluated in %.3f s\n", seconds);
    return 0;
}

int minimize_command(const Arguments &a) {
    const std::string path = single_file(a);
    const std::string test = a.required("--test");
    const std::string out = a.required("-o");
    MinimizeOptions options;
    options.max_tests = int(parse_unsigned(a.option("--max-tests", "300"), "--max-tests"));
    const std::filesystem::path scratch = std::filesystem::path(out).concat(".candidate.json");
    auto still_fails = [&](const Description &candidate) {
        write_description(candidate, scratch.string());
        std::string command = test;
        const size_t at = command.find("{}");
        if (at == std::string::npos) throw std::invalid_argument("--test must contain {} for the candidate's file");
        command.replace(at, 2, "'" + scratch.string() + "'");
        return std::system(command.c_str()) == 0;
    };
    const MinimizeResult result = minimize(read_description(path), still_fails, options, [](const std::string &line) {
        std::cerr << "strata-fuzz minimize: " << line << "\n";
    });
    write_description(result.description, out);
    std::filesystem::remove(scratch);
    std::cerr << "strata-fuzz minimize: " << result.stages_before << " -> " << result.stages_after << " stages in "
              << result.tests << " tests; wrote " << out << "\n";
    return 0;
}

void usage() {
    std::cerr << "usage: strata-fuzz describe --seed N [--budget B] [-o FILE]\n"
                 "       strata-fuzz show FILE\n"
                 "       strata-fuzz evaluate FILE [--input-seed N]\n"
                 "       strata-fuzz minimize FILE --test 'COMMAND {}' -o OUT [--max-tests N]\n";
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        usage();
        return 2;
    }
    const std::string command = argv[1];
    try {
        const Arguments a = parse(argc, argv);
        if (command == "describe") return describe(a);
        if (command == "show") return show(a);
        if (command == "evaluate") return evaluate_command(a);
        if (command == "minimize") return minimize_command(a);
        usage();
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "strata-fuzz " << command << ": " << e.what() << "\n";
        return 1;
    }
}
