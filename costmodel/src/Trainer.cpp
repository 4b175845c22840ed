#include "strata/costmodel/Trainer.h"

#include "strata/costmodel/AdamOptimizer.h"
#include "strata/costmodel/AnalyticModel.h"
#include "strata/costmodel/TermCombination.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
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
    std::vector<PreparedSchedule> schedules;
};

// All stages of a set of groups as one input matrix, so that each step is one batched pass.
struct PreparedSet {
    std::vector<PreparedGroup> groups;
    Eigen::MatrixXd inputs;  // transformed features, one column per stage
};

PreparedSet prepare(const std::vector<const MeasuredPipeline *> &pipelines) {
    PreparedSet set;
    std::vector<const FeatureVector *> features;
    for (const MeasuredPipeline *pipeline : pipelines) {
        PreparedGroup group;
        for (const MeasuredSchedule &schedule : pipeline->schedules) {
            if (!(schedule.seconds > 0) || !std::isfinite(schedule.seconds)) {
                throw std::invalid_argument("pipeline '" + pipeline->name + "', schedule " + schedule.label +
                                            ": measured time must be positive and finite");
            }
            if (schedule.stages.empty()) {
                throw std::invalid_argument("pipeline '" + pipeline->name + "', schedule " + schedule.label +
                                            ": no stages");
            }
            PreparedSchedule prepared;
            prepared.first_column = Eigen::Index(features.size());
            prepared.seconds = schedule.seconds;
            for (const StageFeatures &stage : schedule.stages) {
                prepared.terms.push_back(
                    StageTerms{stage.kernel, AnalyticModel::terms(stage.features, pipeline->spec)});
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

void fit_normalization(LearnedModel &model, const Eigen::MatrixXd &inputs) {
    if (inputs.cols() == 0) return;
    const Eigen::VectorXd mean = inputs.rowwise().mean();
    const Eigen::VectorXd variance = (inputs.colwise() - mean).array().square().rowwise().mean();
    // A constant feature gets scale 1, not a division by ~0.
    const Eigen::VectorXd scale = variance.unaryExpr([](double v) { return v > 1e-12 ? std::sqrt(v) : 1.0; });
    model.set_normalization(mean, scale);
}

std::vector<size_t> all_indices(size_t n) {
    std::vector<size_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = i;
    return v;
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
    if (options.epochs < 1 || options.pipelines_per_batch < 1 || !(options.learning_rate > 0)) {
        throw std::invalid_argument("trainer options: epochs, pipelines per batch and learning rate must be positive");
    }
    if (options.validation_fraction < 0 || options.validation_fraction >= 1) {
        throw std::invalid_argument("trainer options: the validation fraction must be in [0, 1)");
    }
    const auto start = std::chrono::steady_clock::now();

    // Split by pipeline hash: order the distinct hashes by a seeded key, the first ones validate.
    std::set<ContentHash> hashes;
    for (const MeasuredPipeline &p : data) hashes.insert(p.pipeline_hash);
    std::vector<ContentHash> order(hashes.begin(), hashes.end());
    std::sort(order.begin(), order.end(), [&](ContentHash a, ContentHash b) {
        return mix(a.value() ^ mix(options.seed)) < mix(b.value() ^ mix(options.seed));
    });
    size_t validation_count = size_t(std::floor(options.validation_fraction * double(order.size()) + 0.5));
    if (options.validation_fraction > 0 && order.size() > 1) validation_count = std::max<size_t>(validation_count, 1);
    validation_count = std::min(validation_count, order.size() - 1);
    const std::set<ContentHash> validation_set(order.begin(), order.begin() + long(validation_count));

    std::vector<const MeasuredPipeline *> train_data, validation_data;
    for (const MeasuredPipeline &p : data)
        (validation_set.count(p.pipeline_hash) ? validation_data : train_data).push_back(&p);
    const PreparedSet train = prepare(train_data);
    const PreparedSet validation = prepare(validation_data);
    if (train.groups.empty()) throw std::invalid_argument("no training data: every measured pipeline is empty");

    LearnedModel model =
        options.initial ? *options.initial : LearnedModel::identity(options.hidden_sizes, options.seed);
    if (!options.initial) fit_normalization(model, train.inputs);
    // The same network with a zero output layer: the pure analytic model, for comparison.
    LearnedModel analytic = model;
    analytic.layers().back().weights.setZero();
    analytic.layers().back().bias.setZero();

    AdamOptimizer adam(model.layers(), options.learning_rate);
    LearnedModel best = model;
    double best_loss = std::numeric_limits<double>::infinity();
    int best_epoch = 0;
    std::vector<size_t> order_of_groups = all_indices(train.groups.size());
    const std::vector<size_t> all_validation = all_indices(validation.groups.size());
    for (int epoch = 1; epoch <= options.epochs; ++epoch) {
        std::sort(order_of_groups.begin(), order_of_groups.end(), [&](size_t a, size_t b) {
            return mix(a ^ mix(uint64_t(epoch) ^ options.seed)) < mix(b ^ mix(uint64_t(epoch) ^ options.seed));
        });
        double train_loss = 0;
        for (size_t first = 0; first < order_of_groups.size(); first += size_t(options.pipelines_per_batch)) {
            const size_t last = std::min(order_of_groups.size(), first + size_t(options.pipelines_per_batch));
            const std::vector<size_t> batch(order_of_groups.begin() + long(first),
                                            order_of_groups.begin() + long(last));
            std::vector<LearnedModel::Layer> gradient = model.zero_like();
            train_loss +=
                evaluate(model, train, batch, options.log_error_weight, &gradient).loss * double(batch.size());
            adam.step(model.layers(), gradient);
        }
        train_loss /= double(order_of_groups.size());

        EpochReport report;
        report.epoch = epoch;
        report.train_loss = train_loss;
        double selection_loss = train_loss;
        if (!validation.groups.empty()) {
            const Evaluation v = evaluate(model, validation, all_validation, options.log_error_weight, nullptr);
            report.validation_loss = v.loss;
            report.validation_pairwise_accuracy = ranking_metrics(v.predictions).pairwise_accuracy;
            selection_loss = v.loss;
        }
        if (selection_loss < best_loss) {
            best_loss = selection_loss;
            best = model;
            best_epoch = epoch;
        }
        report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress) progress(report);
    }

    TrainingResult result{Weights{best}};
    result.best_epoch = best_epoch;
    result.train_pipelines = int(order.size() - validation_count);
    result.validation_pipelines = int(validation_count);
    result.validation_hashes.assign(validation_set.begin(), validation_set.end());
    result.train_learned =
        ranking_metrics(evaluate(best, train, all_indices(train.groups.size()), 0, nullptr).predictions);
    if (!validation.groups.empty()) {
        result.validation_learned = ranking_metrics(evaluate(best, validation, all_validation, 0, nullptr).predictions);
        result.validation_analytic =
            ranking_metrics(evaluate(analytic, validation, all_validation, 0, nullptr).predictions);
    }
    return result;
}

}  // namespace strata::costmodel
