#pragma once
// One epoch of train_loop: a pass over the training rows in a freshly
// shuffled order, each minibatch gathered, its loss and gradients computed
// (alone, or by a team: ParallelStep), the gradient observer called, the
// optimizer step taken, the model's after_step called and the progress
// reported. It owns what the steps share from epoch to epoch: the optimizer,
// the shuffling and the team.
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "neural/ops/fused_adam.hpp"
#include "neural/runtime/worker_team.hpp"
#include "neural/train/data_parallel.hpp"
#include "neural/train/parallel_step.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/core/callbacks.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {

class EpochRunner {
 public:
  // Makes the optimizer of the model's parameters and tells the model
  // (LoopModel::optimizer_ready), then, for a pure batch_loss, the team of
  // batch_workers (one thread being a team of one). `start`: when training began, for the
  // progress reports. `callbacks` and `observer` must outlive the runner.
  EpochRunner(LoopModel& model, const TrainingSet& data, const LoopSettings& settings,
              const FitCallbacks& callbacks, const GradientObserver& observer,
              Clock::time_point start);
  // The team holds references to the optimizer: the runner stays in place.
  EpochRunner(const EpochRunner&) = delete;
  EpochRunner& operator=(const EpochRunner&) = delete;

  // Minibatches per epoch.
  long batches() const { return batches_; }
  // Runs epoch `epoch` of `epochs` and returns its mean minibatch loss.
  // `last_val`, the latest validation loss, goes into the progress reports.
  // Throws TrainingError when the loss or the gradient norm is not finite.
  double run(int epoch, int epochs, const std::optional<double>& last_val);
  // The team that takes the steps, or null; it computes the validation loss
  // too.
  WorkerTeam* team() { return team_step_ ? &team_step_->team() : nullptr; }
  // The data-parallel side (callbacks.ranks given), or null.
  const DataParallel* data_parallel() const { return data_parallel_ ? &*data_parallel_ : nullptr; }

  // What carries from one epoch to the next besides the model, for training
  // checkpoints: the optimizer, the shuffling generator and the order it
  // shuffles (each epoch shuffles the previous epoch's order further).
  FusedAdam& optimizer() { return optimizer_; }
  std::string shuffle_state() const { return rng_.state(); }
  const std::vector<std::int64_t>& row_order() const { return order_; }
  // Continues from a checkpoint's state; `order` must be a permutation of the
  // training rows (DataError otherwise).
  void resume(const std::string& shuffle_state, std::vector<std::int64_t> order);

 private:
  // The data-parallel sums' buckets (GradientBuckets), told by the team's
  // first layer of its weight gradient's unit blocks as they are finished.
  void make_buckets();
  // One minibatch, order_[begin, end): its loss, once the optimizer step is
  // taken.
  double step(const StepInfo& info, std::size_t begin, std::size_t end);
  // The loss of rows[begin, end) (non-empty) and its gradients in .grad;
  // a loss that is not finite leaves them undefined.
  double loss_and_gradients(const std::vector<std::int64_t>& rows, std::size_t begin,
                            std::size_t end, const StepInfo& info);

  LoopModel& model_;
  const TrainingSet& data_;
  const FitCallbacks& callbacks_;
  const GradientObserver& observer_;
  const Clock::time_point start_;
  const double lr_;  // for the divergence messages
  std::vector<torch::Tensor> parameters_;
  FusedAdam optimizer_;
  Rng rng_;                          // the shuffling: stream 1 of the seed
  std::vector<std::int64_t> order_;  // the training rows, reshuffled each epoch
  std::size_t batch_;
  long batches_;
  std::optional<ParallelStep> team_step_;
  std::optional<DataParallel> data_parallel_;
  // One process reading a file by row blocks shuffles within windows of its
  // blocks (order_by_windows); the ranks of a data-parallel fit keep the
  // global shuffle, so that they follow one process exactly.
  ReadingWindow window_;
  ReadAhead read_ahead_ = ReadAhead::ByReaders;  // told to the source with each pass's order
  std::vector<std::int64_t> local_;              // this rank's rows of the minibatch
};

}  // namespace topkfs
