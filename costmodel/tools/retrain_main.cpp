// strata-retrain: fits the learned part of Strata's cost model to profiling
// logs and writes weights for STRATA_WEIGHTS — only if they beat the pure
// analytic model on apps they never saw, unless forced. See kUsage for the
// options and costmodel/include/strata/costmodel/Trainer.h for the method.
//
// Example:
//   strata-retrain logs/ -o h200.json
//   strata-retrain --synthetic 200 --truth additive -o /tmp/check.json   # a check without a GPU
//   strata-retrain --identity -o costmodel/weights/default.json
#include "PredictionPlots.h"

#include "strata/costmodel/CommandLine.h"
#include "strata/costmodel/SyntheticProfiles.h"
#include "strata/costmodel/Trainer.h"
#include "strata/runtime/LogTrainingData.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace strata::costmodel;
using namespace strata::runtime;
using Json = nlohmann::ordered_json;

// Exit status when the weights are worse than analytic and were not written.
constexpr int kRefused = 3;

const char *kUsage = R"(usage: strata-retrain [options] LOG_OR_DIRECTORY... -o WEIGHTS.json
       strata-retrain --synthetic N [--truth model-form|additive] [options] -o WEIGHTS.json
       strata-retrain --identity [--hidden A,B] [--seed N] -o WEIGHTS.json

Fits the learned coefficients of Strata's GPU cost model to profiling logs
(JSON Lines written by strata-bench; directories are searched for *.jsonl)
and writes weights to use with STRATA_WEIGHTS=WEIGHTS.json. Validation holds
whole apps out (never one app at another size): one model per fold of apps,
each predicting the apps it never saw. The weights are written only if, on
those held-out apps, they rank schedules better than the pure analytic model
and fit them better; otherwise nothing is written and the exit status is 3.
Beside the weights: WEIGHTS.predictions.jsonl and a predicted-vs-measured
plot per GPU, WEIGHTS.<gpu>.png.

options:
  -o, --output FILE      the weights to write (required)
  --force                write the weights even if they are not better than analytic
  --gpu NAME|SPEC.json   the GPU spec of devices that are not in the table
  --no-spec-check        train on records featurized for another spec than their device's
  --init FILE            start from these weights instead of the analytic model
  --epochs N             most passes over the training data (150); the held-out loss picks how many
  --learning-rate X      Adam step size (0.003)
  --batch N              pipelines per step (8)
  --hidden A,B,...       hidden layer sizes (24,16)
  --folds N              folds of held-out apps: one app per fold up to N apps (24)
  --seed N               folds, initialization and shuffling (1)
  --log-weight X         weight of the log-error term of the loss (0.1)
  --synthetic N          train on N synthetic apps instead of logs
  --truth NAME           the synthetic ground truth: model-form (the model's own form) or
                         additive (a form the model cannot represent) (model-form)
  --sizes N              synthetic: measure each app at N sizes (1)
  --no-plots             skip the predictions plot
  --identity             write identity weights (the pure analytic model)
  --show-skipped N       print up to N messages about skipped log lines (10)
  -h, --help             this text
)";

struct Arguments {
    std::vector<std::string> inputs;
    std::string output;
    std::string gpu;
    std::string init;
    bool force = false;
    bool check_specs = true;
    bool plots = true;
    int synthetic = 0;
    int sizes = 1;
    SyntheticTruth truth = SyntheticTruth::ModelForm;
    bool identity = false;
    int show_skipped = 10;
    TrainerOptions trainer;
};

std::vector<int> parse_sizes(const std::string &text) {
    std::vector<int> sizes;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) sizes.push_back(parse_number<int>("--hidden", part));
    if (sizes.empty()) throw UsageError("--hidden expects sizes such as 24,16");
    for (int s : sizes) {
        if (s < 1 || s > 4096) throw UsageError("--hidden sizes must be between 1 and 4096");
    }
    return sizes;
}

Arguments parse_arguments(int argc, char **argv) {
    Arguments a;
    for (CommandLine args(argc, argv); args.next();) {
        const std::string arg = args.current();
        if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (arg == "-o" || arg == "--output") {
            a.output = args.value();
        } else if (arg == "--force") {
            a.force = true;
        } else if (arg == "--gpu") {
            a.gpu = args.value();
        } else if (arg == "--no-spec-check") {
            a.check_specs = false;
        } else if (arg == "--init") {
            a.init = args.value();
        } else if (arg == "--epochs") {
            a.trainer.epochs = parse_number<int>(arg, args.value());
        } else if (arg == "--learning-rate") {
            a.trainer.learning_rate = parse_number<double>(arg, args.value());
        } else if (arg == "--batch") {
            a.trainer.pipelines_per_batch = parse_number<int>(arg, args.value());
        } else if (arg == "--hidden") {
            a.trainer.hidden_sizes = parse_sizes(args.value());
        } else if (arg == "--folds") {
            a.trainer.max_folds = parse_number<int>(arg, args.value());
            if (a.trainer.max_folds < 2) throw UsageError("--folds needs at least 2");
        } else if (arg == "--seed") {
            a.trainer.seed = parse_number<uint64_t>(arg, args.value());
        } else if (arg == "--log-weight") {
            a.trainer.log_error_weight = parse_number<double>(arg, args.value());
        } else if (arg == "--synthetic") {
            a.synthetic = parse_number<int>(arg, args.value());
            if (a.synthetic < 2) throw UsageError("--synthetic needs at least 2 pipelines");
        } else if (arg == "--truth") {
            try {
                a.truth = parse_synthetic_truth(args.value());
            } catch (const std::invalid_argument &e) {
                throw UsageError(std::string("--truth: ") + e.what());
            }
        } else if (arg == "--sizes") {
            a.sizes = parse_number<int>(arg, args.value());
            if (a.sizes < 1) throw UsageError("--sizes needs at least 1");
        } else if (arg == "--no-plots") {
            a.plots = false;
        } else if (arg == "--identity") {
            a.identity = true;
        } else if (arg == "--show-skipped") {
            a.show_skipped = parse_number<int>(arg, args.value());
        } else if (!arg.empty() && arg[0] == '-') {
            throw UsageError("unknown option " + arg);
        } else {
            a.inputs.push_back(arg);
        }
    }
    if (a.output.empty()) throw UsageError("the output weights file is required (-o WEIGHTS.json)");
    const int modes = int(a.identity) + int(a.synthetic > 0) + int(!a.inputs.empty());
    if (modes == 0) throw UsageError("give logs to train on (or --synthetic N, or --identity)");
    if (modes > 1) throw UsageError("logs, --synthetic and --identity exclude each other");
    return a;
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

Json metrics_json(const RankingMetrics &m) {
    return Json{{"pairwise_accuracy", m.pairwise_accuracy},
                {"top1_recall", m.top1_recall},
                {"top1_within_10_percent", m.top1_within_10_percent},
                {"top5_recall", m.top5_recall},
                {"median_relative_error", m.median_relative_error},
                {"pipelines", m.groups},
                {"schedules", m.schedules}};
}

Json options_json(const TrainerOptions &o) {
    return Json{{"hidden_sizes", o.hidden_sizes},     {"epochs", o.epochs},
                {"learning_rate", o.learning_rate},   {"pipelines_per_batch", o.pipelines_per_batch},
                {"max_folds", o.max_folds},           {"seed", o.seed},
                {"log_error_weight", o.log_error_weight}};
}

int write_identity(const Arguments &a) {
    Weights weights{LearnedModel::identity(a.trainer.hidden_sizes, a.trainer.seed)};
    weights.training = {{"tool", "strata-retrain --identity"},
                        {"description", "a zero output layer: every coefficient is exactly 1, the pure analytic model"},
                        {"seed", a.trainer.seed},
                        {"records", 0}};
    weights.write_file(a.output);
    std::printf("wrote identity weights (hidden %zu layers, %lld parameters) to %s\n", a.trainer.hidden_sizes.size(),
                static_cast<long long>(weights.model.parameter_count()), a.output.c_str());
    return 0;
}

struct Dataset {
    std::vector<MeasuredPipeline> pipelines;
    Json description;
    std::vector<std::string> gpus;  // spec names the features were computed for
};

Dataset synthetic_data(const Arguments &a) {
    SyntheticOptions synthetic;
    synthetic.pipelines = a.synthetic;
    synthetic.sizes_per_algorithm = a.sizes;
    synthetic.truth = a.truth;
    synthetic.noise = 0.02;
    synthetic.seed = a.trainer.seed;
    const GpuSpec spec = a.gpu.empty() ? GpuSpec::default_spec() : GpuSpec::from_name_or_file(a.gpu);
    Dataset d;
    d.pipelines = make_synthetic_pipelines(synthetic, spec);
    std::printf("synthetic data: %d apps × %d size(s) × %d schedules on %s, %s truth, 2%% noise\n", synthetic.pipelines,
                synthetic.sizes_per_algorithm, synthetic.schedules_per_pipeline, spec.name.c_str(),
                synthetic_truth_name(synthetic.truth));
    d.description = {{"synthetic_apps", synthetic.pipelines},
                     {"sizes_per_app", synthetic.sizes_per_algorithm},
                     {"truth", synthetic_truth_name(synthetic.truth)}};
    d.gpus = {spec.name};
    return d;
}

Dataset log_data(const Arguments &a) {
    LogTrainingOptions options;
    if (!a.gpu.empty()) options.fallback = GpuSpec::from_name_or_file(a.gpu);
    options.check_specs = a.check_specs;
    TrainingDataBuilder builder(options);
    LogReadReport report;
    read_profile_logs(
        a.inputs, [&](ProfileRecord &&record, const std::string &where) { builder.add(record, where); }, report);
    std::printf("read %zu log file(s): %d records, %s\n", report.files.size(), report.records,
                report.skipped.summary().c_str());
    for (size_t i = 0; i < report.messages.size() && int(i) < a.show_skipped; ++i) {
        std::printf("  %s\n", report.messages[i].c_str());
    }
    if (report.skipped.total() > a.show_skipped) {
        std::printf("  ... %d more (--show-skipped N)\n", report.skipped.total() - a.show_skipped);
    }
    if (report.records == 0) throw std::runtime_error("no usable records in the logs");
    LogTrainingData data = std::move(builder).finish();
    std::printf("training data: %zu pipeline/GPU groups, %d schedules (%d repeated measurements merged)\n",
                data.pipelines.size(), data.schedules, data.duplicates_merged);
    Json devices = Json::object();
    for (const auto &[gpu, count] : data.records_per_gpu) {
        std::printf("  %s: %d records\n", gpu.c_str(), count);
        devices[gpu] = count;
    }
    for (const std::string &gpu : data.gpus_on_fallback) {
        std::printf("  %s is not in the GPU table: using the --gpu spec %s\n", gpu.c_str(), options.fallback->name.c_str());
    }
    Json logs = Json::array();
    for (const LogFileSummary &f : report.files) {
        logs.push_back({{"path", f.path}, {"lines", f.lines}, {"records", f.records}, {"content_hash", f.content.hex()}});
    }
    Dataset d;
    d.pipelines = std::move(data.pipelines);
    d.gpus.assign(data.gpu_specs.begin(), data.gpu_specs.end());
    d.description = {{"logs", logs},
                     {"records", report.records},
                     {"skipped_lines", report.skipped.total()},
                     {"schedules", data.schedules},
                     {"records_per_device", devices}};
    return d;
}

// "h200.json" → "h200": where the predictions and plots go beside the weights.
std::string output_stem(const std::string &output) {
    const std::string suffix = ".json";
    if (output.size() > suffix.size() && output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return output.substr(0, output.size() - suffix.size());
    }
    return output;
}

int train(Arguments &a) {
    Dataset data = a.synthetic > 0 ? synthetic_data(a) : log_data(a);
    if (!a.init.empty()) {
        a.trainer.initial = Weights::read_file(a.init).model;
        std::printf("starting from %s\n", a.init.c_str());
    }

    const TrainingResult result = train_cost_model(data.pipelines, a.trainer, [&](const EpochReport &e) {
        std::printf("epoch %4d/%d  train loss %.6f  held-out loss %.6f  held-out pairwise %.3f  %.1f s\n", e.epoch,
                    a.trainer.epochs, e.train_loss, e.held_out_loss, e.held_out_pairwise_accuracy, e.seconds);
        std::fflush(stdout);
    });

    std::printf("\n%d apps in %d folds (each fold's apps held out of its model's training); %d epochs chosen by the "
                "held-out loss\n",
                result.algorithms, result.folds, result.epochs_chosen);
    if (result.folds > 0) {
        std::printf("held-out learned   %s\n", result.held_out_learned.summary().c_str());
        std::printf("held-out analytic  %s\n", result.held_out_analytic.summary().c_str());
    }
    std::printf("final fit (all apps, in-sample) %s\n", result.train_learned.summary().c_str());
    std::printf("verdict: %s\n", result.verdict.c_str());

    Weights weights = result.weights;
    weights.training = {{"tool", "strata-retrain"},
                        {"strata_version", strata_version()},
                        {"created_utc", utc_now()},
                        {"gpus", data.gpus},
                        {"data", data.description},
                        {"options", options_json(a.trainer)},
                        {"initial_weights", a.init.empty() ? Json("identity") : Json(a.init)},
                        {"epochs_chosen", result.epochs_chosen},
                        {"folds", result.folds},
                        {"fold_apps", result.fold_algorithms},
                        {"better_than_analytic", result.better_than_analytic},
                        {"verdict", result.verdict},
                        {"metrics",
                         {{"held_out_learned", metrics_json(result.held_out_learned)},
                          {"held_out_analytic", metrics_json(result.held_out_analytic)},
                          {"held_out_loss_learned", result.held_out_loss_learned},
                          {"held_out_loss_analytic", result.held_out_loss_analytic},
                          {"final_in_sample", metrics_json(result.train_learned)}}}};

    const std::string stem = output_stem(a.output);
    const bool held_out = !result.held_out_predictions.empty();
    const std::string predictions = stem + ".predictions.jsonl";
    write_predictions(predictions, data.pipelines,
                      held_out ? result.held_out_predictions : predict_all(data.pipelines, weights), held_out);
    std::printf("wrote %s (%s predictions)\n", predictions.c_str(), held_out ? "held-out" : "in-sample");
    if (a.plots) {
        std::fflush(stdout);
        for (const std::string &line : plot_predictions(predictions, stem)) std::printf("%s\n", line.c_str());
    }

    if (!result.better_than_analytic && !a.force) {
        std::printf("NOT WRITTEN: %s is left as it was; the analytic model stays the better choice (--force writes "
                    "the weights anyway)\n",
                    a.output.c_str());
        return kRefused;
    }
    weights.write_file(a.output);
    std::printf("wrote %s%s (use it with STRATA_WEIGHTS=%s)\n", a.output.c_str(),
                result.better_than_analytic ? "" : " although it is not better than analytic (--force)",
                a.output.c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        Arguments arguments = parse_arguments(argc, argv);
        return arguments.identity ? write_identity(arguments) : train(arguments);
    } catch (const UsageError &e) {
        std::fprintf(stderr, "strata-retrain: %s\n\n%s", e.what(), kUsage);
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "strata-retrain: %s\n", e.what());
        return 1;
    }
}
