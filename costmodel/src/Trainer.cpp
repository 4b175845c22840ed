#include "strata/costmodel/Trainer.h"

#include "strata/costmodel/AdamOptimizer.h"
#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/TermCombination.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace strata::costmodel {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finalizer: a seeded, portable shuffle key
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// One schedule, ready for training: its stages' columns in the input matrix and their terms.
struct PreparedSchedule {
    std::vector<StageTerms> terms;
    Eigen::Index first_column = 0;
    double seconds = 0;
};

struct PreparedGroup {
    size_t pipeline = 0;  // index into the data
    std::vector<PreparedSchedule> schedules;
};

// All stages of a set of groups as one input matrix, so that each step is one batched pass.
struct PreparedSet {
    std::vector<PreparedGroup> groups;
    Eigen::MatrixXd inputs;  // transformed features, one column per stage
};

PreparedSet prepare(const std::vector<MeasuredPipeline> &pipelines) {
    PreparedSet set;
    std::vector<const FeatureVector *> features;
    for (size_t p = 0; p < pipelines.size(); ++p) {
        const MeasuredPipeline &pipeline = pipelines[p];
        PreparedGroup group;
        group.pipeline = p;
        for (const MeasuredSchedule &schedule : pipeline.schedules) {
            if (!(schedule.seconds > 0) || !std::isfinite(schedule.seconds)) {
                throw std::invalid_argument("pipeline '" + pipeline.name + "', schedule " + schedule.label +
                                            ": measured time must be positive and finite");
            }
            if (schedule.stages.empty()) {
                throw std::invalid_argument("pipeline '" + pipeline.name + "', schedule " + schedule.label +
                                            ": no stages");
            }
            PreparedSchedule prepared;
            prepared.first_column = Eigen::Index(features.size());
            prepared.seconds = schedule.seconds;
            for (const StageFeatures &stage : schedule.stages) {
                prepared.terms.push_back(StageTerms{stage.kernel, AnalyticModel::terms(stage.features, pipeline.spec)});
                features.push_back(&stage.features);
            }
            group.schedules.push_back(std::move(prepared));
        }
        if (!group.schedules.empty()) set.groups.push_back(std::move(group));
    }
    set.inputs = LearnedModel::transform(features);
    return set;
}

struct Evaluation {
    double loss = 0;
    std::vector<PredictedGroup> predictions;
};

// Predicts every schedule of `groups` (indices into set.groups); with
// `gradient`, also accumulates d mean-loss / d parameters.
Evaluation evaluate(const LearnedModel &model, const PreparedSet &set, const std::vector<size_t> &groups,
                    double log_error_weight, std::vector<LearnedModel::Layer> *gradient) {
    // Gather the columns of the chosen groups.
    std::vector<Eigen::Index> columns;
    for (size_t g : groups) {
        for (const PreparedSchedule &s : set.groups[g].schedules) {
            for (size_t k = 0; k < s.terms.size(); ++k) columns.push_back(s.first_column + Eigen::Index(k));
        }
    }
    Eigen::MatrixXd inputs(kNumFeatures, Eigen::Index(columns.size()));
    for (size_t c = 0; c < columns.size(); ++c) inputs.col(Eigen::Index(c)) = set.inputs.col(columns[c]);

    LearnedModel::Activations activations;
    const Eigen::MatrixXd log_c = model.forward(inputs, gradient ? &activations : nullptr);
    const Eigen::MatrixXd c = log_c.array().exp();
    Eigen::MatrixXd d_log_c;
    if (gradient) d_log_c = Eigen::MatrixXd::Zero(log_c.rows(), log_c.cols());

    Evaluation result;
    Eigen::Index column = 0;
    std::vector<TermVector> coefficients, d_coefficients;
    std::vector<std::vector<TermVector>> d_time_d_c;
    std::vector<double> d_predicted;
    for (size_t g : groups) {
        const PreparedGroup &group = set.groups[g];
        PredictedGroup predicted;
        d_time_d_c.assign(group.schedules.size(), {});
        const Eigen::Index group_first_column = column;
        for (size_t i = 0; i < group.schedules.size(); ++i) {
            const PreparedSchedule &s = group.schedules[i];
            coefficients.resize(s.terms.size());
            for (size_t k = 0; k < s.terms.size(); ++k) {
                for (int t = 0; t < kNumTerms; ++t) coefficients[k][t] = c(t, column + Eigen::Index(k));
            }
            predicted.measured.push_back(s.seconds);
            predicted.predicted.push_back(
                std::max(pipeline_seconds(s.terms, coefficients, gradient ? &d_time_d_c[i] : nullptr), 1e-30));
            column += Eigen::Index(s.terms.size());
        }
        const double loss = relative_throughput_loss(predicted.measured, predicted.predicted, log_error_weight,
                                                     gradient ? &d_predicted : nullptr);
        result.loss += loss / double(groups.size());
        if (gradient) {
            Eigen::Index col = group_first_column;
            for (size_t i = 0; i < group.schedules.size(); ++i) {
                const double scale = d_predicted[i] / double(groups.size());
                for (size_t k = 0; k < group.schedules[i].terms.size(); ++k, ++col) {
                    for (int t = 0; t < kNumTerms; ++t) d_log_c(t, col) = scale * d_time_d_c[i][k][t] * c(t, col);
                }
            }
        }
        result.predictions.push_back(std::move(predicted));
    }
    if (gradient) model.backward(activations, d_log_c, *gradient);
    return result;
}

// The normalization of the columns of `groups`: z = (x - mean) / scale.
void fit_normalization(LearnedModel &model, const PreparedSet &set, const std::vector<size_t> &groups) {
    std::vector<Eigen::Index> columns;
    for (size_t g : groups) {
        for (const PreparedSchedule &s : set.groups[g].schedules) {
            for (size_t k = 0; k < s.terms.size(); ++k) columns.push_back(s.first_column + Eigen::Index(k));
        }
    }
    if (columns.empty()) return;
    Eigen::MatrixXd inputs(set.inputs.rows(), Eigen::Index(columns.size()));
    for (size_t c = 0; c < columns.size(); ++c) inputs.col(Eigen::Index(c)) = set.inputs.col(columns[c]);
    const Eigen::VectorXd mean = inputs.rowwise().mean();
    const Eigen::VectorXd variance = (inputs.colwise() - mean).array().square().rowwise().mean();
    // A constant feature gets scale 1, not a division by ~0.
    const Eigen::VectorXd scale = variance.unaryExpr([](double v) { return v > 1e-12 ? std::sqrt(v) : 1.0; });
    model.set_normalization(mean, scale);
}

// One model being fit: on all data, or on all but one fold's algorithms.
struct Fit {
    LearnedModel model;
    AdamOptimizer adam;
    std::vector<size_t> train;     // group indices
    std::vector<size_t> held_out;  // group indices (empty for the final fit)

    Fit(LearnedModel m, double learning_rate, std::vector<size_t> train_groups, std::vector<size_t> held_out_groups)
        : model(std::move(m)),
          adam(model.layers(), learning_rate),
          train(std::move(train_groups)),
          held_out(std::move(held_out_groups)) {}

    // One pass over the training groups in a seeded order; the mean training loss.
    double epoch(const PreparedSet &set, int number, const TrainerOptions &options) {
        std::vector<size_t> order = train;
        const uint64_t key = mix(uint64_t(number) ^ options.seed);
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mix(a ^ key) < mix(b ^ key); });
        double loss = 0;
        for (size_t first = 0; first < order.size(); first += size_t(options.pipelines_per_batch)) {
            const size_t last = std::min(order.size(), first + size_t(options.pipelines_per_batch));
            const std::vector<size_t> batch(order.begin() + long(first), order.begin() + long(last));
            std::vector<LearnedModel::Layer> gradient = model.zero_like();
            loss += evaluate(model, set, batch, options.log_error_weight, &gradient).loss * double(batch.size());
            adam.step(model.layers(), gradient);
        }
        return order.empty() ? 0 : loss / double(order.size());
    }
};

LearnedModel starting_model(const TrainerOptions &options, const PreparedSet &set, const std::vector<size_t> &train) {
    if (options.initial) return *options.initial;
    LearnedModel model = LearnedModel::identity(options.hidden_sizes, options.seed);
    fit_normalization(model, set, train);
    return model;
}

std::set<std::string> algorithm_keys(const std::vector<MeasuredPipeline> &data) {
    std::set<std::string> keys;
    for (const MeasuredPipeline &p : data) keys.insert(p.algorithm_key());
    return keys;
}

// The folds: algorithm keys in a seeded order, dealt round-robin.
std::vector<std::vector<std::string>> deal_folds(const std::set<std::string> &keys, const TrainerOptions &options) {
    if (keys.size() < 2) return {};
    std::vector<std::string> order(keys.begin(), keys.end());
    const uint64_t key = mix(options.seed);
    std::sort(order.begin(), order.end(), [&](const std::string &a, const std::string &b) {
        return mix(ContentHash::of_text(a).value() ^ key) < mix(ContentHash::of_text(b).value() ^ key);
    });
    std::vector<std::vector<std::string>> folds(std::min(order.size(), size_t(options.max_folds)));
    for (size_t i = 0; i < order.size(); ++i) folds[i % folds.size()].push_back(order[i]);
    return folds;
}

std::string fixed(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", v);
    return text;
}

}  // namespace

double relative_throughput_loss(const std::vector<double> &measured, const std::vector<double> &predicted,
                                double log_error_weight, std::vector<double> *d_predicted) {
    const size_t n = measured.size();
    if (d_predicted) d_predicted->assign(n, 0.0);
    if (n == 0) return 0;
    const double best = *std::min_element(measured.begin(), measured.end());
    double loss = 0;
    for (size_t i = 0; i < n; ++i) {
        const double r = best / measured[i];
        const double q = best / predicted[i];
        const double log_error = std::log(predicted[i]) - std::log(measured[i]);
        loss += (r - q) * (r - q) + log_error_weight * log_error * log_error;
        if (d_predicted) {
            // d q / d p = -best / p^2
            (*d_predicted)[i] =
                (2 * (r - q) * best / (predicted[i] * predicted[i]) + log_error_weight * 2 * log_error / predicted[i]) /
                double(n);
        }
    }
    return loss / double(n);
}

TrainingResult train_cost_model(const std::vector<MeasuredPipeline> &data, const TrainerOptions &options,
                                const std::function<void(const EpochReport &)> &progress) {
    if (data.empty()) throw std::invalid_argument("no training data: no measured pipelines");
    if (options.epochs < 0 || options.pipelines_per_batch < 1 || !(options.learning_rate > 0) ||
        !std::isfinite(options.learning_rate) || options.max_folds < 2) {
        throw std::invalid_argument("trainer options: epochs must not be negative, the batch and learning rate must "
                                    "be positive and there must be at least 2 folds");
    }
    const auto start = std::chrono::steady_clock::now();
    const PreparedSet set = prepare(data);
    if (set.groups.empty()) throw std::invalid_argument("no training data: every measured pipeline is empty");

    std::vector<size_t> all(set.groups.size());
    for (size_t g = 0; g < all.size(); ++g) all[g] = g;
    TrainingResult result{Weights{starting_model(options, set, all)}};
    const std::set<std::string> algorithms = algorithm_keys(data);
    result.algorithms = int(algorithms.size());
    result.fold_algorithms = deal_folds(algorithms, options);
    result.folds = int(result.fold_algorithms.size());

    std::vector<Fit> folds;
    std::vector<size_t> every_held_out;  // group indices, in fold order
    for (const std::vector<std::string> &held : result.fold_algorithms) {
        std::vector<size_t> train, held_out;
        for (size_t g = 0; g < set.groups.size(); ++g) {
            const std::string &key = data[set.groups[g].pipeline].algorithm_key();
            (std::find(held.begin(), held.end(), key) != held.end() ? held_out : train).push_back(g);
        }
        every_held_out.insert(every_held_out.end(), held_out.begin(), held_out.end());
        folds.emplace_back(starting_model(options, set, train), options.learning_rate, std::move(train),
                           std::move(held_out));
    }

    // The held-out predictions of every fold model, pooled, with their mean loss.
    auto held_out_evaluation = [&](const std::vector<Fit> &fits) {
        Evaluation pooled;
        for (const Fit &fit : fits) {
            Evaluation e = evaluate(fit.model, set, fit.held_out, options.log_error_weight, nullptr);
            pooled.loss += e.loss * double(fit.held_out.size());
            for (PredictedGroup &g : e.predictions) pooled.predictions.push_back(std::move(g));
        }
        if (!every_held_out.empty()) pooled.loss /= double(every_held_out.size());
        return pooled;
    };

    Evaluation best = held_out_evaluation(folds);  // epoch 0: the starting point
    for (int epoch = 1; epoch <= options.epochs && !folds.empty(); ++epoch) {
        EpochReport report;
        report.epoch = epoch;
        for (Fit &fit : folds) report.train_loss += fit.epoch(set, epoch, options) / double(folds.size());
        Evaluation held_out = held_out_evaluation(folds);
        report.held_out_loss = held_out.loss;
        report.held_out_pairwise_accuracy = ranking_metrics(held_out.predictions).pairwise_accuracy;
        if (held_out.loss < best.loss) {
            best = std::move(held_out);
            result.epochs_chosen = epoch;
        }
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress) progress(report);
    }

    // The final fit: all data, for the chosen number of epochs (all of them without folds to choose by).
    Fit final_fit(starting_model(options, set, all), options.learning_rate, all, {});
    const int final_epochs = folds.empty() ? options.epochs : result.epochs_chosen;
    for (int epoch = 1; epoch <= final_epochs; ++epoch) {
        const double train_loss = final_fit.epoch(set, epoch, options);
        if (folds.empty() && progress) {  // else the folds reported every epoch
            EpochReport report;
            report.epoch = epoch;
            report.train_loss = train_loss;
            report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            progress(report);
        }
    }
    if (folds.empty()) result.epochs_chosen = final_epochs;
    result.weights = Weights{final_fit.model};
    result.train_learned = ranking_metrics(evaluate(final_fit.model, set, all, 0, nullptr).predictions);

    if (folds.empty()) {
        result.verdict = "only one algorithm in the data: nothing to hold out, so nothing shows the weights are "
                         "better than the analytic model";
        return result;
    }
    // The pure analytic model: a zero output layer (every coefficient 1), whatever the normalization.
    LearnedModel analytic = final_fit.model;
    analytic.layers().back().weights.setZero();
    analytic.layers().back().bias.setZero();
    const Evaluation analytic_eval = evaluate(analytic, set, every_held_out, options.log_error_weight, nullptr);
    result.held_out_learned = ranking_metrics(best.predictions);
    result.held_out_analytic = ranking_metrics(analytic_eval.predictions);
    result.held_out_loss_learned = best.loss;
    result.held_out_loss_analytic = analytic_eval.loss;
    for (size_t i = 0; i < every_held_out.size(); ++i) {
        const PreparedGroup &group = set.groups[every_held_out[i]];
        for (size_t k = 0; k < group.schedules.size(); ++k) {
            result.held_out_predictions.push_back({group.pipeline, k, best.predictions[i].measured[k],
                                                   best.predictions[i].predicted[k],
                                                   analytic_eval.predictions[i].predicted[k]});
        }
    }

    WeightsJudgement judgement = judge_weights(result.held_out_learned, result.held_out_analytic,
                                               result.held_out_loss_learned, result.held_out_loss_analytic);
    result.better_than_analytic = judgement.better;
    result.verdict = std::move(judgement.verdict);
    if (!result.better_than_analytic && result.epochs_chosen == 0) {
        result.verdict = "no epoch improved on the starting point for held-out algorithms; " + result.verdict;
    }
    return result;
}

WeightsJudgement judge_weights(const RankingMetrics &learned, const RankingMetrics &analytic, double loss_learned,
                               double loss_analytic) {
    const bool ranks_better = learned.pairwise_accuracy > analytic.pairwise_accuracy;
    const bool fits_better = loss_learned < loss_analytic;
    const bool picks_no_worse = learned.top1_within_10_percent >= analytic.top1_within_10_percent;
    const std::string numbers = "held-out pairwise accuracy " + fixed(learned.pairwise_accuracy) + " vs analytic " +
                                fixed(analytic.pairwise_accuracy) + ", loss " + fixed(loss_learned) + " vs " +
                                fixed(loss_analytic) + ", top-1 within 10% " +
                                fixed(learned.top1_within_10_percent) + " vs " +
                                fixed(analytic.top1_within_10_percent);
    WeightsJudgement j;
    j.better = ranks_better && fits_better && picks_no_worse;
    if (j.better) {
        j.verdict = "better than the analytic model on held-out algorithms: " + numbers;
        return j;
    }
    std::vector<std::string> why;
    if (!ranks_better) why.push_back("it ranks no better");
    if (!fits_better) why.push_back("it fits worse");
    if (!picks_no_worse) why.push_back("its pick is within 10% of the best less often, so a search would do worse");
    std::string reasons;
    for (const std::string &w : why) reasons += (reasons.empty() ? "" : "; ") + w;
    j.verdict = "not better than the analytic model on held-out algorithms (" + reasons + "): " + numbers;
    return j;
}

}  // namespace strata::costmodel
