// strata-retrain: fits the learned part of Strata's cost model to profiling
// logs and writes weights for STRATA_WEIGHTS. See usage() for the options
// and costmodel/include/strata/costmodel/Trainer.h for the loss.
//
// Example:
//   strata-retrain logs/ -o h200.json
//   strata-retrain --synthetic 200 -o /tmp/check.json      # a self-check without a GPU
//   strata-retrain --identity -o costmodel/weights/default.json
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

const char *kUsage = R"(usage: strata-retrain [options] LOG_OR_DIRECTORY... -o WEIGHTS.json
       strata-retrain --synthetic N [options] -o WEIGHTS.json
       strata-retrain --identity [--hidden A,B] [--seed N] -o WEIGHTS.json

Fits the learned coefficients of Strata's GPU cost model to profiling logs
(JSON Lines written by strata-bench; directories are searched for *.jsonl)
and writes weights to use with STRATA_WEIGHTS=WEIGHTS.json. Pipelines are
split into training and validation sets; ranking metrics on the validation
pipelines are printed for the learned and the pure analytic model.

options:
  -o, --output FILE      the weights to write (required)
  --gpu NAME|SPEC.json   the GPU spec for devices that are not in the table
  --init FILE            start from these weights instead of the analytic model
  --epochs N             passes over the training pipelines (150)
  --learning-rate X      Adam step size (0.003)
  --batch N              pipelines per step (8)
  --hidden A,B,...       hidden layer sizes (24,16)
  --validation F         fraction of pipelines held out for validation (0.2)
  --seed N               split, initialization and shuffling (1)
  --log-weight X         weight of the log-error term of the loss (0.1)
  --synthetic N          train on N synthetic pipelines instead of logs
  --identity             write identity weights (the pure analytic model)
  --show-skipped N       print up to N messages about skipped log lines (10)
  -h, --help             this text
)";

struct Arguments {
    std::vector<std::string> inputs;
    std::string output;
    std::string gpu;
    std::string init;
    int synthetic = 0;
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
        } else if (arg == "--gpu") {
            a.gpu = args.value();
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
        } else if (arg == "--validation") {
            a.trainer.validation_fraction = parse_number<double>(arg, args.value());
        } else if (arg == "--seed") {
            a.trainer.seed = parse_number<uint64_t>(arg, args.value());
        } else if (arg == "--log-weight") {
            a.trainer.log_error_weight = parse_number<double>(arg, args.value());
        } else if (arg == "--synthetic") {
            a.synthetic = parse_number<int>(arg, args.value());
            if (a.synthetic < 2) throw UsageError("--synthetic needs at least 2 pipelines");
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
                {"top5_recall", m.top5_recall},
                {"median_relative_error", m.median_relative_error},
                {"pipelines", m.groups},
                {"schedules", m.schedules}};
}

Json options_json(const TrainerOptions &o) {
    return Json{{"hidden_sizes", o.hidden_sizes},
                {"epochs", o.epochs},
                {"learning_rate", o.learning_rate},
                {"pipelines_per_batch", o.pipelines_per_batch},
                {"validation_fraction", o.validation_fraction},
                {"seed", o.seed},
                {"log_error_weight", o.log_error_weight}};
}

GpuSpec resolve_gpu(const std::string &name_or_file) {
    const bool is_file = name_or_file.size() > 5 && name_or_file.substr(name_or_file.size() - 5) == ".json";
    return is_file ? GpuSpec::from_json_file(name_or_file) : GpuSpec::by_name(name_or_file);
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

int train(Arguments &a) {
    Json data_description;
    std::vector<MeasuredPipeline> pipelines;
    if (a.synthetic > 0) {
        SyntheticOptions synthetic;
        synthetic.pipelines = a.synthetic;
        synthetic.noise = 0.02;
        synthetic.seed = a.trainer.seed;
        const GpuSpec spec = a.gpu.empty() ? GpuSpec::default_spec() : resolve_gpu(a.gpu);
        pipelines = make_synthetic_pipelines(synthetic, spec);
        std::printf("synthetic data: %d pipelines × %d schedules on %s, 2%% noise\n", synthetic.pipelines,
                    synthetic.schedules_per_pipeline, spec.name.c_str());
        data_description = {{"synthetic_pipelines", synthetic.pipelines}, {"gpu", spec.name}};
    } else {
        const ProfileLogContents logs = read_profile_logs(a.inputs);
        std::printf("read %zu log file(s): %zu records, %s\n", logs.files.size(), logs.records.size(),
                    logs.skipped.summary().c_str());
        for (size_t i = 0; i < logs.messages.size() && int(i) < a.show_skipped; ++i) {
            std::printf("  %s\n", logs.messages[i].c_str());
        }
        if (int(logs.messages.size()) > a.show_skipped) {
            std::printf("  ... %zu more (--show-skipped N)\n", logs.messages.size() - size_t(a.show_skipped));
        }
        if (logs.records.empty()) throw std::runtime_error("no usable records in the logs");
        std::optional<GpuSpec> fallback;
        if (!a.gpu.empty()) fallback = resolve_gpu(a.gpu);
        LogTrainingData data = training_data_from_logs(logs.records, fallback);
        std::printf("training data: %zu pipeline/GPU groups, %d schedules (%d repeated measurements merged)\n",
                    data.pipelines.size(), data.schedules, data.duplicates_merged);
        Json gpus = Json::object();
        for (const auto &[gpu, count] : data.records_per_gpu) {
            std::printf("  %s: %d records\n", gpu.c_str(), count);
            gpus[gpu] = count;
        }
        for (const std::string &gpu : data.gpus_on_fallback) {
            std::printf("  %s is not in the GPU table: using the --gpu spec %s\n", gpu.c_str(), fallback->name.c_str());
        }
        data_description = {{"logs", logs.files},
                            {"records", logs.records.size()},
                            {"skipped_lines", logs.skipped.total()},
                            {"schedules", data.schedules},
                            {"records_per_gpu", gpus}};
        pipelines = std::move(data.pipelines);
    }
    if (!a.init.empty()) {
        a.trainer.initial = Weights::read_file(a.init).model;
        std::printf("starting from %s\n", a.init.c_str());
    }

    const TrainingResult result = train_cost_model(pipelines, a.trainer, [&](const EpochReport &e) {
        std::printf("epoch %4d/%d  train loss %.6f  validation loss %.6f  pairwise %.3f  %.1f s\n", e.epoch,
                    a.trainer.epochs, e.train_loss, e.validation_loss, e.validation_pairwise_accuracy, e.seconds);
        std::fflush(stdout);
    });

    std::printf("\nbest epoch %d; %d training and %d validation pipelines\n", result.best_epoch, result.train_pipelines,
                result.validation_pipelines);
    std::printf("training   learned   %s\n", result.train_learned.summary().c_str());
    if (result.validation_pipelines > 0) {
        std::printf("validation learned   %s\n", result.validation_learned.summary().c_str());
        std::printf("validation analytic  %s\n", result.validation_analytic.summary().c_str());
    } else {
        std::printf("no validation pipelines (--validation 0 or a single pipeline): no held-out metrics\n");
    }

    Weights weights = result.weights;
    weights.training = {{"tool", "strata-retrain"},
                        {"strata_version", strata_version()},
                        {"created_utc", utc_now()},
                        {"data", data_description},
                        {"options", options_json(a.trainer)},
                        {"initial_weights", a.init.empty() ? Json("identity") : Json(a.init)},
                        {"best_epoch", result.best_epoch},
                        {"pipelines", {{"train", result.train_pipelines}, {"validation", result.validation_pipelines}}},
                        {"metrics",
                         {{"train_learned", metrics_json(result.train_learned)},
                          {"validation_learned", metrics_json(result.validation_learned)},
                          {"validation_analytic", metrics_json(result.validation_analytic)}}}};
    weights.write_file(a.output);
    std::printf("wrote %s (use it with STRATA_WEIGHTS=%s)\n", a.output.c_str(), a.output.c_str());
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
