#pragma once
// What every neural selector does around its training: check the request,
// pick the task, set the threads, carve out the validation rows, fit the
// input scaling, build the targets; and afterwards fill the result.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "neural/runtime/threads.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/neural/dnn_top.hpp"
#include "topkfs/neural/training_options.hpp"
#include "topkfs/select/selection_result.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

using NeuralClock = std::chrono::steady_clock;

struct NeuralProblem {
  const Dataset* data = nullptr;  // the caller's, for feature names in messages
  TrainingSet set;
  NeuralTask task = NeuralTask::MultiClass;
  std::int64_t inputs = 0;
  std::int64_t outputs = 0;  // classes, 1 for two classes, or target columns
  InputScaling scaling_used = InputScaling::None;
  int threads_used = 0;
};

// Throws DataError for data without a target.
NeuralTask task_of(const Dataset& data);

// Everything up to the first training step, for `rows` of `data`, with the
// options' validation fraction, scaling (auto: "image" when `image_data`,
// else "standard"), seed and threads. `options` must be valid. `ranks`: of
// a data-parallel fit (each rank reads its shard's rows for the scaling
// statistics), or null.
NeuralProblem prepare_problem(const Dataset& data, const std::vector<std::int64_t>& rows,
                              const NeuralTrainingOptions& options, bool image_data, ThreadUse use,
                              RankGroup* ranks);

// The loop's settings from the shared options (Adam with its usual betas).
LoopSettings loop_settings(const NeuralTrainingOptions& options);

// The result of a fit: ranking and selection by `scores`, the history, the
// options (with what "auto" resolved to) and the validation note.
SelectionResult neural_result(const std::string& method, int k, std::vector<double> scores,
                              const Dataset& data, const NeuralProblem& problem,
                              const TrainingOutcome& outcome, nlohmann::json options,
                              NeuralClock::time_point start);

// Adds 1 + (largest - smallest score) to the scores of `chosen`, so that a
// method whose selection is not simply its top-k scores (a search, a set of
// argmaxes) ranks its chosen columns first and keeps the order of its scores
// within each part.
void rank_chosen_first(std::vector<double>& scores, const std::vector<std::int64_t>& chosen);

}  // namespace topkfs
