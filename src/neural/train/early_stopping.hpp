#pragma once
// Early stopping for train_loop: keeps the state of the epoch with the best
// validation loss (LoopModel::state()), counts the epochs since it, and says
// when to stop. Only the epochs that end after the model's schedule
// (LoopModel::schedule_end()) count towards the patience: while the objective
// still changes, a worse validation loss says little about overfitting.
#include <torch/types.h>

#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "neural/train/trainer.hpp"

namespace topkfs {

// Where early stopping stands after an epoch: what a training checkpoint keeps.
struct StoppingState {
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<torch::Tensor> best_state;  // copies of LoopModel::state(), or none
  int epochs_without_improvement = 0;
  int best_epoch = 0;
  bool stopped_early = false;
};

class EarlyStopping {
 public:
  // `patience`: how many counted epochs without a better validation loss end
  // the training; 0 = never.
  EarlyStopping(int patience, double schedule_end)
      : patience_(patience), schedule_end_(schedule_end) {}

  // After epoch `epoch` of `epochs`, with its validation loss (none without
  // validation rows: every epoch is then the best). True: stop now.
  bool stop_after(int epoch, int epochs, const std::optional<double>& val_loss, LoopModel& model);
  // Puts the best epoch's state back into the model, when it was kept.
  void restore_best(LoopModel& model) const;

  int best_epoch() const { return state_.best_epoch; }
  bool stopped_early() const { return state_.stopped_early; }

  // For training checkpoints: the state, and a resumed run's.
  const StoppingState& state() const { return state_; }
  void resume(StoppingState state) { state_ = std::move(state); }

 private:
  const int patience_;
  const double schedule_end_;
  StoppingState state_;
};

}  // namespace topkfs
