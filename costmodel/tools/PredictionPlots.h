// PredictionPlots: strata-retrain's record of how its model predicts the
// measured schedules — one JSON line per schedule (GPU, app, variant,
// measured, learned and analytic seconds, the schedule's DRAM bytes and the
// analytic term that dominates it) — and the predicted-vs-measured pictures
// drawn from it, one PNG per GPU, by plot_predictions.py (matplotlib).
//
// The predictions are the held-out ones where validation held algorithms
// out (each schedule predicted by a model that never saw its app), else the
// final model's own, and the file says which. Plotting is best effort: a
// Python without matplotlib costs the pictures, never the weights.
//
// Example:
//   write_predictions("h200.predictions.jsonl", data, predictions, /*held_out=*/true);
//   for (const std::string &line : plot_predictions("h200.predictions.jsonl", "h200")) std::puts(line.c_str());
#pragma once

#include "strata/costmodel/Trainer.h"

#include <string>
#include <vector>

namespace strata::costmodel {

void write_predictions(const std::string &path, const std::vector<MeasuredPipeline> &data,
                       const std::vector<SchedulePrediction> &predictions, bool held_out);

// Every schedule of `data` as `weights` and the analytic model predict it (in-sample).
std::vector<SchedulePrediction> predict_all(const std::vector<MeasuredPipeline> &data, const Weights &weights);

// Runs the plotting script on `predictions_path`, writing <prefix>.<gpu>.png
// per GPU; returns what to print (the files written, or why there are none).
std::vector<std::string> plot_predictions(const std::string &predictions_path, const std::string &prefix);

}  // namespace strata::costmodel
