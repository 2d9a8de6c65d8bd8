#pragma once
// Early stopping for train_loop: keeps the state of the epoch with the best
// validation loss (LoopModel::state()), counts the epochs since it, and says
// when to stop. Only the epochs that end after the model's schedule
// (LoopModel::schedule_end()) count towards the patience: while the objective
// still changes, a worse validation loss says little about overfitting.
#include <torch/types.h>

#include <limits>
#include <optional>
#include <vector>

#include "trainer.hpp"

namespace topkfs {

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

  int best_epoch() const { return best_epoch_; }
  bool stopped_early() const { return stopped_early_; }

 private:
  const int patience_;
  const double schedule_end_;
  double best_val_ = std::numeric_limits<double>::infinity();
  std::vector<torch::Tensor> best_state_;  // copies of LoopModel::state()
  int epochs_without_improvement_ = 0;
  int best_epoch_ = 0;
  bool stopped_early_ = false;
};

}  // namespace topkfs
