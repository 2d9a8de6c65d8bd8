#include "neural_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/core/rank_group.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/data/scaling.hpp"
#include "topkfs/data/splits.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

std::int64_t output_count(const Dataset& data, NeuralTask task) {
  switch (task) {
    case NeuralTask::MultiClass: return data.num_classes();
    case NeuralTask::Binary: return 1;
    case NeuralTask::Regression: return data.num_outputs();
  }
  return 0;
}

const char* task_name(NeuralTask task) {
  switch (task) {
    case NeuralTask::MultiClass: return "multiclass";
    case NeuralTask::Binary: return "binary";
    case NeuralTask::Regression: return "regression";
  }
  return "";
}

// Targets as a tensor over all rows. Real targets are standardised with the
// training rows' statistics so that the loss scale, and so the meaning of the
// penalty weights, does not depend on the target's unit.
Tensor target_tensor(const Dataset& data, NeuralTask task, const std::vector<std::int64_t>& train) {
  const auto n = data.rows();
  if (task == NeuralTask::MultiClass) {
    return torch::tensor(std::vector<std::int64_t>(data.labels.begin(), data.labels.end()),
                         torch::kLong);
  }
  if (task == NeuralTask::Binary) {
    Tensor y = torch::empty({n, 1});
    auto* out = y.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(data.labels[static_cast<std::size_t>(i)]);
    return y;
  }
  const auto q = data.targets.cols();
  Tensor y = torch::empty({n, q});
  auto* out = y.data_ptr<float>();
  for (Eigen::Index j = 0; j < q; ++j) {
    double sum = 0.0, sum_sq = 0.0;
    for (auto row : train) {
      sum += data.targets(row, j);
      sum_sq += data.targets(row, j) * data.targets(row, j);
    }
    const double mean = sum / static_cast<double>(train.size());
    const double var = std::max(0.0, sum_sq / static_cast<double>(train.size()) - mean * mean);
    const double scale = var > 0 ? std::sqrt(var) : 1.0;
    for (std::int64_t i = 0; i < n; ++i)
      out[i * q + j] = static_cast<float>((data.targets(i, j) - mean) / scale);
  }
  return y;
}

// The training rows' column statistics, computed on first use: one
// sequential pass over them (a mapped file is read once, in order) serves
// both the choice of --scaling auto and the scaler. In a data-parallel run
// each rank passes over its shard's rows only and the ranks sum the parts.
class TrainingStatistics {
 public:
  TrainingStatistics(const Dataset& data, const std::vector<std::int64_t>& rows, RankGroup* ranks)
      : data_(data), rows_(rows), ranks_(ranks) {}
  const ColumnStatistics& get() {
    if (!stats_) {
      stats_ = ranks_ ? column_statistics(data_.feature_rows(), rows_, *ranks_)
                      : column_statistics(data_.feature_rows(), rows_);
    }
    return *stats_;
  }

 private:
  const Dataset& data_;
  const std::vector<std::int64_t>& rows_;
  RankGroup* ranks_;
  std::optional<ColumnStatistics> stats_;
};

// Per-column offset and 1/scale for the minibatch gatherer, fitted on the
// training rows. "image" divides every pixel by the largest training value:
// per-pixel scaling would blow up nearly constant border pixels, whose noise
// then competes with real strokes for the top-k budget.
void scale_inputs(const Dataset& data, TrainingSet& set, InputScaling scaling,
                  TrainingStatistics& statistics) {
  const auto m = data.cols();
  if (scaling == InputScaling::Image) {
    const ColumnStatistics& stats = statistics.get();
    const auto largest = static_cast<float>(
        std::max(stats.high.cwiseAbs().maxCoeff(), stats.low.cwiseAbs().maxCoeff()));
    set.offset = torch::zeros({m});
    set.inv_scale = torch::full({m}, largest > 0 ? 1.0f / largest : 1.0f);
    return;
  }
  TOPKFS_ASSERT(scaling != InputScaling::Auto);
  if (scaling == InputScaling::None) return;
  const ScalingKind kind =
      scaling == InputScaling::MinMax ? ScalingKind::MinMax : ScalingKind::Standard;
  const Scaler scaler = scaler_from(statistics.get(), kind);
  const auto as_tensor = [m](const Eigen::VectorXd& vector) {
    return torch::from_blob(const_cast<double*>(vector.data()), {m}, torch::kDouble)
        .to(torch::kFloat);
  };
  set.offset = as_tensor(scaler.offset);
  set.inv_scale = 1.0 / as_tensor(scaler.scale);
}

// The weights of `rows` (data/sample_weights.hpp) over all rows of the
// data, 0 elsewhere, scaled to mean 1 over `train_rows`; undefined when the
// data carries none.
torch::Tensor weight_tensor(const Dataset& data, const std::vector<std::int64_t>& rows,
                            const std::vector<std::int64_t>& train_rows) {
  const std::vector<double> weights = row_weights(data, rows);
  if (weights.empty()) return {};
  std::vector<double> full(static_cast<std::size_t>(data.rows()), 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i)
    full[static_cast<std::size_t>(rows[i])] = weights[i];
  double total = 0.0;
  for (auto row : train_rows) total += full[static_cast<std::size_t>(row)];
  check_rows_weigh(std::vector<double>{total}, data.source);
  torch::Tensor out = torch::empty({data.rows()});
  float* to = out.data_ptr<float>();
  const double scale = static_cast<double>(train_rows.size()) / total;
  for (std::size_t i = 0; i < full.size(); ++i) to[i] = static_cast<float>(full[i] * scale);
  return out;
}

}  // namespace

NeuralTask task_of(const Dataset& data) {
  switch (data.target_kind) {
    case TargetKind::Classes:
      return data.num_classes() == 2 ? NeuralTask::Binary : NeuralTask::MultiClass;
    case TargetKind::Real: return NeuralTask::Regression;
    case TargetKind::None: break;
  }
  throw DataError(
      fmt::format("{}: supervised selection needs a target, and this data has none", data.source));
}

namespace {

// --scaling auto (docs/algorithms.md, "Input scaling"): image data is divided
// by its largest value; data already within [0, 1] is left as it is, for the
// same reason (standardising would stretch its nearly constant columns to the
// spread of the others); other data is standardised.
InputScaling auto_scaling(TrainingStatistics& statistics, bool image_data) {
  if (image_data) return InputScaling::Image;
  const ColumnStatistics& stats = statistics.get();
  return stats.low.minCoeff() >= 0.0 && stats.high.maxCoeff() <= 1.0 ? InputScaling::None
                                                                     : InputScaling::Standard;
}

}  // namespace

NeuralProblem prepare_problem(const Dataset& data, const std::vector<std::int64_t>& rows,
                              const NeuralTrainingOptions& options, bool image_data, ThreadUse use,
                              RankGroup* ranks) {
  NeuralProblem problem;
  problem.data = &data;
  problem.task = task_of(data);
  problem.inputs = data.cols();
  problem.outputs = output_count(data, problem.task);
  problem.threads_used = configure_threads(options.threads, use);
  if (rows.size() < 2) {
    throw DataError(
        fmt::format("{}: {} training rows are too few to learn from", data.source, rows.size()));
  }
  TrainingSet& set = problem.set;
  set.features = &data.feature_rows();
  set.task = problem.task;
  set.input_groups = data.column_group;
  if (options.validation > 0) {
    const TrainValTest parts =
        train_validation_split(data, rows, options.validation, derive_seed(options.seed, 2));
    set.train_rows = parts.train;
    set.validation_rows = parts.validation;
  } else {
    set.train_rows = rows;
  }
  TrainingStatistics statistics(data, set.train_rows, ranks);
  problem.scaling_used = options.scaling == InputScaling::Auto
                             ? auto_scaling(statistics, image_data)
                             : options.scaling;
  scale_inputs(data, set, problem.scaling_used, statistics);
  set.targets = target_tensor(data, problem.task, set.train_rows);
  set.weights = weight_tensor(data, rows, set.train_rows);
  return problem;
}

LoopSettings loop_settings(const NeuralTrainingOptions& options) {
  LoopSettings settings;
  settings.epochs = options.epochs;
  settings.batch = options.batch;
  settings.global_batch = options.global_batch;
  settings.adam.lr = options.lr;
  settings.adam.clip = options.clip;
  settings.patience = options.patience;
  settings.min_steps = options.min_steps;
  settings.seed = options.seed;
  return settings;
}

SelectionResult neural_result(const std::string& method, int k, std::vector<double> scores,
                              const Dataset& data, const NeuralProblem& problem,
                              const TrainingOutcome& outcome, nlohmann::json options,
                              NeuralClock::time_point start) {
  SelectionResult result;
  result.method = method;
  result.k = k;
  result.scores = std::move(scores);
  finish_selection(result, data.feature_names);
  result.history = outcome.history;
  result.options = std::move(options);
  result.options["scaling_used"] = enum_name(problem.scaling_used);
  result.options["threads_used"] = problem.threads_used;
  result.options["task"] = task_name(problem.task);
  const TrainingSet& set = problem.set;
  const int asked = result.options.value("epochs", outcome.epochs_planned);
  if (outcome.epochs_planned > asked) {
    result.notes.push_back(
        fmt::format("small data: {} epochs instead of {} (and the patience alike), so that "
                    "training makes at least {} steps",
                    outcome.epochs_planned, asked,
                    option_ref("min-steps", result.options.value("min-steps", 0))));
  }
  if (!set.validation_rows.empty()) {
    result.notes.push_back(fmt::format(
        "{} training rows, {} validation rows; weights of epoch {} (best validation loss){}",
        set.train_rows.size(), set.validation_rows.size(), outcome.best_epoch,
        outcome.stopped_early ? ", stopped early" : ""));
  }
  result.fit_seconds = std::chrono::duration<double>(NeuralClock::now() - start).count();
  return result;
}

void rank_chosen_first(std::vector<double>& scores, const std::vector<std::int64_t>& chosen) {
  if (scores.empty()) return;
  const auto [low, high] = std::minmax_element(scores.begin(), scores.end());
  const double lift = 1.0 + (*high - *low);
  for (auto column : chosen) scores[static_cast<std::size_t>(column)] += lift;
}

}  // namespace topkfs
