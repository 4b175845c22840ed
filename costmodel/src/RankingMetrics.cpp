#include "strata/costmodel/RankingMetrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace strata::costmodel {

namespace {

// Is the measured-fastest schedule among the k predicted fastest?
bool best_in_predicted_top(const PredictedGroup &g, size_t k) {
    const size_t best = size_t(std::min_element(g.measured.begin(), g.measured.end()) - g.measured.begin());
    // Schedules predicted strictly faster than the best one push it down the list.
    size_t ahead = 0;
    for (size_t i = 0; i < g.predicted.size(); ++i) {
        if (i != best && g.predicted[i] < g.predicted[best]) ++ahead;
    }
    return ahead < k;
}

// Does the schedule predicted fastest measure within `tolerance` of the fastest measured?
bool predicted_best_within(const PredictedGroup &g, double tolerance) {
    const double best = *std::min_element(g.measured.begin(), g.measured.end());
    const size_t chosen = size_t(std::min_element(g.predicted.begin(), g.predicted.end()) - g.predicted.begin());
    return g.measured[chosen] <= best * (1 + tolerance);
}

}  // namespace

RankingMetrics ranking_metrics(const std::vector<PredictedGroup> &groups) {
    RankingMetrics m;
    double agreeing = 0;
    int top1 = 0, top5 = 0, top1_close = 0;
    std::vector<double> relative_errors;
    for (const PredictedGroup &g : groups) {
        if (g.measured.size() != g.predicted.size()) {
            throw std::invalid_argument("ranking_metrics: a group has " + std::to_string(g.measured.size()) +
                                        " measured and " + std::to_string(g.predicted.size()) + " predicted times");
        }
        if (g.measured.empty()) continue;
        ++m.groups;
        for (size_t i = 0; i < g.measured.size(); ++i) {
            relative_errors.push_back(std::abs(g.predicted[i] - g.measured[i]) / g.measured[i]);
            for (size_t j = i + 1; j < g.measured.size(); ++j) {
                if (g.measured[i] == g.measured[j]) continue;
                ++m.pairs;
                const double a = g.predicted[i] - g.predicted[j];
                const double b = g.measured[i] - g.measured[j];
                agreeing += a == 0 ? 0.5 : ((a < 0) == (b < 0) ? 1.0 : 0.0);
            }
        }
        top1 += best_in_predicted_top(g, 1);
        top5 += best_in_predicted_top(g, 5);
        top1_close += predicted_best_within(g, 0.10);
    }
    m.schedules = long(relative_errors.size());
    if (m.pairs > 0) m.pairwise_accuracy = agreeing / double(m.pairs);
    if (m.groups > 0) {
        m.top1_recall = double(top1) / m.groups;
        m.top5_recall = double(top5) / m.groups;
        m.top1_within_10_percent = double(top1_close) / m.groups;
    }
    if (!relative_errors.empty()) {
        const size_t mid = relative_errors.size() / 2;
        std::nth_element(relative_errors.begin(), relative_errors.begin() + long(mid), relative_errors.end());
        double median = relative_errors[mid];
        if (relative_errors.size() % 2 == 0) {
            median = (median + *std::max_element(relative_errors.begin(), relative_errors.begin() + long(mid))) / 2;
        }
        m.median_relative_error = median;
    }
    return m;
}

std::string RankingMetrics::summary() const {
    char text[256];
    std::snprintf(
        text, sizeof text,
        "pairwise %.3f (%ld pairs), top-1 %.3f (within 10%%: %.3f), top-5 %.3f, median rel. error %.3f (%d "
        "pipelines, %ld schedules)",
        pairwise_accuracy, pairs, top1_recall, top1_within_10_percent, top5_recall, median_relative_error, groups,
        schedules);
    return text;
}

}  // namespace strata::costmodel
