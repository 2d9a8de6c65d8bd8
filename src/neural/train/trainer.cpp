#include "trainer.hpp"

#include <fmt/format.h>
#include <torch/nn/functional.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>

#include "neural/ops/stacked_loss.hpp"
#include "neural/runtime/worker_team.hpp"
#include "neural/train/early_stopping.hpp"
#include "neural/train/epoch_runner.hpp"
#include "neural/train/training_checkpoint.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

Tensor rows_tensor(const std::vector<std::int64_t>& rows, std::size_t begin, std::size_t end) {
  return torch::from_blob(const_cast<std::int64_t*>(rows.data() + begin),
                          {static_cast<std::int64_t>(end - begin)}, torch::kLong);
}

// The validation loss summed over `rows`, in chunks of rows, the chunks'
// sums added in chunk order; a team's members take every size()-th chunk.
// The chunks do not depend on the team, so neither does the sum.
double validation_loss_sum(LoopModel& model, const TrainingSet& data,
                           const std::vector<std::int64_t>& rows, WorkerTeam* team) {
  constexpr std::size_t kChunk = 2048;
  const int members = team ? team->size() : 1;
  std::vector<double> sums((rows.size() + kChunk - 1) / kChunk, 0.0);
  auto run_member = [&](int member) {
    torch::NoGradGuard no_grad;  // per thread
    for (std::size_t chunk = static_cast<std::size_t>(member); chunk < sums.size();
         chunk += static_cast<std::size_t>(members)) {
      const std::size_t begin = chunk * kChunk;
      const std::size_t end = std::min(rows.size(), begin + kChunk);
      const Tensor x = gather_batch(data, rows, begin, end, model.input_order());
      const Tensor y = gather_targets(data, rows, begin, end);
      const Tensor w = gather_weights(data, rows, begin, end);
      sums[chunk] =
          model.validation_loss(x, y, w).item<double>() * static_cast<double>(end - begin);
    }
  };
  if (team) {
    team->run(run_member);
  } else {
    run_member(0);
  }
  double sum = 0.0;
  for (const double part : sums) sum += part;
  return sum;
}

// The mean validation loss: over every validation row in one process; over
// this rank's and summed with the other ranks' in a data-parallel loop.
class Validation {
 public:
  Validation(const TrainingSet& data, const DataParallel* parallel)
      : data_(data), parallel_(parallel) {
    if (parallel_) {
      parallel_->local_rows(data.validation_rows, 0, data.validation_rows.size(), local_);
    } else {
      keep_streamed_rows();
    }
  }
  Validation(const Validation&) = delete;  // kept_ points into rows_
  Validation& operator=(const Validation&) = delete;
  double mean_loss(LoopModel& model, WorkerTeam* team) const {
    const TrainingSet& set = kept_ ? *kept_ : data_;
    const auto& rows = parallel_ || kept_ ? local_ : data_.validation_rows;
    const double sum = validation_loss_sum(model, set, rows, team);
    return parallel_ ? parallel_->mean_over_ranks(sum, rows.size())
                     : sum / static_cast<double>(rows.size());
  }

 private:
  // From a file read by row blocks, the validation rows are read once, in
  // file order, and kept when they are no more than the source's cache holds
  // (two windows: ReadingWindow); else each pass reads them in file order,
  // each block once.
  void keep_streamed_rows() {
    const ReadingWindow window = data_.features->reading_window();
    if (window.block_rows <= 0 || data_.validation_rows.empty()) return;
    local_ = data_.validation_rows;
    std::sort(local_.begin(), local_.end());
    if (static_cast<std::int64_t>(local_.size()) > 2 * window.block_rows * window.window_blocks) {
      return;
    }
    const auto count = static_cast<Eigen::Index>(local_.size());
    rows_.resize(count, static_cast<Eigen::Index>(data_.features->column_count()));
    data_.features->copy_rows(local_.data(), local_.size(), rows_.data());
    const Tensor index = torch::tensor(local_, torch::kLong);
    kept_.emplace(data_);
    kept_->features = &rows_;
    kept_->targets = data_.targets.index_select(0, index);
    if (data_.weights.defined()) kept_->weights = data_.weights.index_select(0, index);
    kept_->train_rows.clear();
    for (Eigen::Index i = 0; i < count; ++i) local_[static_cast<std::size_t>(i)] = i;
    kept_->validation_rows = local_;
  }

  const TrainingSet& data_;
  const DataParallel* parallel_;
  std::vector<std::int64_t> local_;
  FeatureMatrix rows_;               // the kept validation rows
  std::optional<TrainingSet> kept_;  // over rows_, renumbered from 0
};

// The validation loss every rank compares is one sum, so they decide alike;
// this makes sure of it, once an epoch, before one rank stops while the
// others wait for its next gradients.
void check_ranks_agree(RankGroup& ranks, bool stop, int epoch) {
  double stopping = stop ? 1.0 : 0.0;
  ranks.sum(&stopping, 1);
  if (stopping != 0.0 && stopping != static_cast<double>(ranks.size())) {
    throw DistributedError(
        fmt::format("after epoch {}, {} of {} ranks decided to stop early: the ranks disagree",
                    epoch, stopping, ranks.size()));
  }
}

// Small data: enough epochs for min_steps steps, and the patience scaled by
// the same factor so that early stopping waits as many steps as planned.
struct PlannedLength {
  int epochs;
  int patience;
};

PlannedLength planned_length(const LoopSettings& settings, long batches) {
  PlannedLength length{settings.epochs, settings.patience};
  if (static_cast<long>(length.epochs) * batches < settings.min_steps) {
    length.epochs = static_cast<int>((settings.min_steps + batches - 1) / batches);
    length.patience = static_cast<int>(std::ceil(static_cast<double>(length.patience) *
                                                 length.epochs / std::max(1, settings.epochs)));
  }
  return length;
}

Tensor unweighted_loss_per_row(const Tensor& output, const Tensor& targets, NeuralTask task) {
  namespace F = torch::nn::functional;
  switch (task) {
    case NeuralTask::MultiClass:
      return F::cross_entropy(output, targets,
                              F::CrossEntropyFuncOptions().reduction(torch::kNone));
    case NeuralTask::Binary:
      return F::binary_cross_entropy_with_logits(
                 output, targets,
                 F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone))
          .mean(1);
    case NeuralTask::Regression:
      return F::mse_loss(output, targets, F::MSELossFuncOptions().reduction(torch::kNone)).mean(1);
  }
  TOPKFS_ASSERT(false);
  return {};
}

}  // namespace

Tensor data_loss(const Tensor& output, const Tensor& targets, NeuralTask task,
                 const Tensor& weights) {
  return stacked_data_loss(output, targets, task, /*second_weight=*/0.0, weights);
}

Tensor data_loss_per_row(const Tensor& output, const Tensor& targets, NeuralTask task,
                         const Tensor& weights) {
  Tensor loss = unweighted_loss_per_row(output, targets, task);
  if (!weights.defined()) return loss;
  // Rows repeated (FIR's masks stack the batch several times) take their
  // weights in the same order.
  return loss * weights.repeat({loss.size(0) / std::max<std::int64_t>(1, weights.size(0))});
}

Tensor gather_weights(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                      std::size_t begin, std::size_t end) {
  if (!data.weights.defined()) return {};
  return data.weights.index_select(0, rows_tensor(rows, begin, end));
}

Tensor gather_targets(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                      std::size_t begin, std::size_t end) {
  return data.targets.index_select(0, rows_tensor(rows, begin, end));
}

void gather_batch_into(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                       std::size_t begin, std::size_t end, Tensor& out, const InputOrder* order) {
  const std::int64_t m = data.features->column_count();
  TOPKFS_ASSERT(out.is_contiguous() && out.size(0) == static_cast<std::int64_t>(end - begin) &&
                out.size(1) == m);
  float* to = out.data_ptr<float>();
  const auto swaps = order ? order->swaps() : std::vector<InputOrder::Swap>();
  const bool scaled = data.offset.defined();
  const float* offset = scaled ? data.offset.data_ptr<float>() : nullptr;
  const float* inv_scale = scaled ? data.inv_scale.data_ptr<float>() : nullptr;
  // The rows as stored (from memory, a mapped file or a file's row blocks:
  // RowSource), a few at a time (16 KB: one call of a source that locks per
  // call, such as row blocks shared by a team), then scaled in place while
  // they are in L1.
  const auto group =
      static_cast<std::size_t>(std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, m)));
  for (std::size_t first = begin; first < end; first += group) {
    const std::size_t last = std::min(end, first + group);
    data.features->copy_rows(&rows[first], last - first, to);
    for (std::size_t i = first; i < last; ++i, to += m) {
      if (scaled) {
        for (std::int64_t j = 0; j < m; ++j) to[j] = (to[j] - offset[j]) * inv_scale[j];
      }
      // The swaps are disjoint, and each value is scaled with its own
      // column's statistics, so putting the row in the model's order is a
      // swap of the scaled values.
      for (const auto& swap : swaps) std::swap(to[swap.place], to[swap.input]);
    }
  }
}

Tensor gather_batch(const TrainingSet& data, const std::vector<std::int64_t>& rows,
                    std::size_t begin, std::size_t end, const InputOrder* order) {
  Tensor batch =
      torch::empty({static_cast<std::int64_t>(end - begin), data.features->column_count()});
  gather_batch_into(data, rows, begin, end, batch, order);
  return batch;
}

TrainingOutcome train_loop(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
                           const FitCallbacks& callbacks, const GradientObserver& observer) {
  const auto start = Clock::now();
  EpochRunner runner(model, data, settings, callbacks, observer, start);
  const long batches = runner.batches();
  const PlannedLength length = planned_length(settings, batches);
  const int epochs = length.epochs;
  EarlyStopping stopping(length.patience, model.schedule_end());

  TrainingOutcome outcome;
  outcome.epochs_planned = epochs;
  std::optional<double> last_val;
  const CheckpointSettings& checkpoint = callbacks.checkpoint;
  nlohmann::json identity;
  int first_epoch = 1;
  if (!checkpoint.path.empty()) {
    identity = loop_identity(nlohmann::json::parse(checkpoint.run.empty() ? "{}" : checkpoint.run),
                             data, settings);
    // The ranks sum in another order than one process: a checkpoint is
    // resumed by as many ranks as wrote it.
    if (callbacks.ranks) identity["world_size"] = callbacks.ranks->size();
    // A resumed fit reads the file, which refuses anything else.
    if (!checkpoint.resume) check_checkpoint_path(checkpoint.path);
    if (checkpoint.resume && std::filesystem::exists(checkpoint.path)) {
      LoopCheckpoint saved = read_checkpoint(checkpoint.path);
      check_same_run(checkpoint.path, saved.identity, identity);
      outcome.history = saved.history;
      last_val = saved.last_val;
      first_epoch = saved.epoch + 1;
      restore_loop(checkpoint.path, std::move(saved), model, runner, stopping);
      callbacks.info(
          fmt::format("resumed from {} after epoch {}", checkpoint.path, first_epoch - 1));
    }
  }
  // Every rank keeps the same state; one writes it.
  const bool writes_checkpoints =
      !checkpoint.path.empty() && (!callbacks.ranks || callbacks.ranks->rank() == 0);
  const Validation validation(data, runner.data_parallel());
  // A resumed run whose checkpoint was written as it stopped early is over.
  if (stopping.stopped_early()) first_epoch = epochs + 1;
  for (int epoch = first_epoch; epoch <= epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    EpochRecord record;
    record.epoch = epoch;
    record.loss = runner.run(epoch, epochs, last_val);
    if (!data.validation_rows.empty()) {
      record.val_loss = validation.mean_loss(model, runner.team());
      last_val = record.val_loss;
    }
    record.seconds = seconds_since(epoch_start);
    outcome.history.push_back(record);
    Progress done{epoch, epochs, batches, batches, record.loss, last_val, seconds_since(start),
                  true};
    if (runner.data_parallel()) done.sum_wait_ms = runner.data_parallel()->sum_wait_ms();
    callbacks.report(done);
    const bool stop = stopping.stop_after(epoch, epochs, record.val_loss, model);
    if (runner.data_parallel()) check_ranks_agree(*callbacks.ranks, stop, epoch);
    if (writes_checkpoints &&
        (stop || epoch == epochs || epoch % std::max(1, checkpoint.every) == 0)) {
      write_checkpoint(checkpoint.path,
                       capture_loop(identity, outcome.history, last_val, model, runner, stopping));
    }
    if (stop) break;
  }
  stopping.restore_best(model);
  outcome.best_epoch = stopping.best_epoch();
  outcome.stopped_early = stopping.stopped_early();
  return outcome;
}

}  // namespace topkfs
