// strata-explain: where the analytic model says a schedule's time goes,
// kernel by kernel — each kernel's stages, launch shape, throughput terms
// (compute, DRAM, L2, shared memory: the busiest bounds the kernel) and
// overheads (atomics, barriers, launch), and its predicted time. Beside a
// profiler's per-kernel times (scripts/gpu-kernel-times), it says which
// kernel the model misprices and which of its terms is wrong.
//
// usage: strata-explain FEATURIZATION [--gpu NAME|SPEC.json] [--json]
//   e.g. strata-explain build/apps/softmax/softmax.featurization
//        (the generator's `-e featurization` output; the GPU defaults to the
//        spec the features were computed for)
#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/Featurization.h"
#include "strata/costmodel/TermCombination.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace strata::costmodel;

struct KernelExplanation {
    int kernel = 0;
    std::string root;                  // the stage whose loops the kernel launches over
    std::vector<std::string> members;  // the other stages it computes
    double blocks = 0, threads_per_block = 0;
    TermVector terms{};                // summed over its stages
    double seconds = 0;                // pipeline_seconds() of its stages alone
    Term dominant = Term::Compute;     // the busiest throughput resource
};

std::vector<KernelExplanation> explain(const ScheduleFeatures &stages, const GpuSpec &spec) {
    const AnalyticModel model(spec);
    std::map<int, std::vector<StageTerms>> by_kernel;
    std::map<int, KernelExplanation> out;
    for (const StageFeatures &s : stages) {
        KernelExplanation &k = out[s.kernel];
        k.kernel = s.kernel;
        const bool root = s.features[index(Feature::IsKernelRoot)] > 0;
        if (root && k.root.empty()) {
            k.root = s.name;
            k.blocks = s.features[index(Feature::Blocks)];
            k.threads_per_block = s.features[index(Feature::ThreadsPerBlock)];
        } else {
            k.members.push_back(s.name);
        }
        const TermVector t = model.terms(s.features);
        for (int i = 0; i < kNumTerms; ++i) k.terms[size_t(i)] += t[size_t(i)];
        by_kernel[s.kernel].push_back({s.kernel, t});
    }
    std::vector<KernelExplanation> result;
    for (auto &[id, k] : out) {
        const std::vector<StageTerms> &terms = by_kernel[id];
        k.seconds = pipeline_seconds(terms, std::vector<TermVector>(terms.size(), unit_coefficients()), nullptr);
        for (Term t : {Term::Dram, Term::L2, Term::Shared, Term::Latency}) {
            if (k.terms[size_t(index(t))] > k.terms[size_t(index(k.dominant))]) k.dominant = t;
        }
        if (k.root.empty() && !k.members.empty()) {  // an imported kernel whose root was not featurized first
            k.root = k.members.front();
            k.members.erase(k.members.begin());
        }
        result.push_back(std::move(k));
    }
    return result;
}

void print_table(const std::vector<KernelExplanation> &kernels, const std::string &pipeline, const GpuSpec &spec) {
    double total = 0;
    for (const KernelExplanation &k : kernels) total += k.seconds;
    std::printf("%s on %s: %zu kernels, predicted %.4g ms (analytic model)\n", pipeline.c_str(), spec.name.c_str(),
                kernels.size(), total * 1e3);
    std::printf("%-6s %-32s %10s %8s %10s %6s %10s %10s %10s %10s %10s %10s  %s\n", "kernel", "root stage", "blocks",
                "threads", "pred. us", "share", "compute", "dram", "l2", "shared", "latency", "overhead", "members");
    for (const KernelExplanation &k : kernels) {
        const auto us = [&](Term t) { return k.terms[size_t(index(t))] * 1e6; };
        std::string members;
        for (const std::string &m : k.members) members += (members.empty() ? "" : ", ") + m;
        std::printf("%-6d %-32s %10.0f %8.0f %10.3f %5.0f%% %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f  %s\n",
                    k.kernel, k.root.c_str(), k.blocks, k.threads_per_block, k.seconds * 1e6,
                    total > 0 ? 100 * k.seconds / total : 0.0, us(Term::Compute), us(Term::Dram), us(Term::L2),
                    us(Term::Shared), us(Term::Latency), us(Term::Atomic) + us(Term::Sync) + us(Term::Launch),
                    members.c_str());
    }
    std::printf("(terms in us; the kernel takes its largest throughput or latency term plus its overheads)\n");
}

void print_json(const std::vector<KernelExplanation> &kernels, const std::string &pipeline, const GpuSpec &spec) {
    for (const KernelExplanation &k : kernels) {
        nlohmann::ordered_json terms;
        for (int i = 0; i < kNumTerms; ++i) terms[term_name(Term(i))] = k.terms[size_t(i)];
        const nlohmann::ordered_json line = {{"pipeline", pipeline},      {"gpu", spec.name},
                                             {"kernel", k.kernel},        {"root", k.root},
                                             {"members", k.members},      {"blocks", k.blocks},
                                             {"threads_per_block", k.threads_per_block},
                                             {"predicted_s", k.seconds},  {"dominant", term_name(k.dominant)},
                                             {"terms", terms}};
        std::printf("%s\n", line.dump().c_str());
    }
}

}  // namespace

int main(int argc, char **argv) {
    CLI::App app{"strata-explain: a featurized schedule's predicted time, kernel by kernel, term by term"};
    std::string featurization_path, gpu;
    bool json = false;
    app.add_option("featurization", featurization_path, "a generator's `-e featurization` output")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--gpu", gpu, "GPU name or spec .json (default: the spec the features were computed for)");
    app.add_flag("--json", json, "one JSON line per kernel instead of the table");
    CLI11_PARSE(app, argc, argv);
    try {
        const Featurization f = Featurization::read_file(featurization_path);
        std::optional<GpuSpec> spec = gpu.empty() ? f.gpu_spec : std::optional<GpuSpec>(GpuSpec::from_name_or_file(gpu));
        if (!spec) {
            std::fprintf(stderr, "strata-explain: %s names no GPU spec (an older featurization): give --gpu\n",
                         featurization_path.c_str());
            return 2;
        }
        const std::vector<KernelExplanation> kernels = explain(f.stages, *spec);
        if (json) print_json(kernels, f.identity.pipeline_name, *spec);
        else print_table(kernels, f.identity.pipeline_name, *spec);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "strata-explain: %s\n", e.what());
        return 1;
    }
    return 0;
}
