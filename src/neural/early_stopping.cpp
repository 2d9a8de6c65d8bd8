#include "early_stopping.hpp"

namespace topkfs {

bool EarlyStopping::stop_after(int epoch, int epochs, const std::optional<double>& val_loss,
                               LoopModel& model) {
  if (!val_loss) {
    best_epoch_ = epoch;
    return false;
  }
  if (*val_loss < best_val_) {
    best_val_ = *val_loss;
    best_epoch_ = epoch;
    best_state_.clear();
    for (const auto& tensor : model.state()) best_state_.push_back(tensor.detach().clone());
    epochs_without_improvement_ = 0;
    return false;
  }
  // The count starts only once the schedule is over.
  const bool counted = static_cast<double>(epoch) / epochs >= schedule_end_;
  if (patience_ > 0 && counted && ++epochs_without_improvement_ >= patience_) {
    stopped_early_ = true;
    return true;
  }
  return false;
}

void EarlyStopping::restore_best(LoopModel& model) const {
  if (best_state_.empty()) return;
  torch::NoGradGuard no_grad;
  auto state = model.state();
  for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(best_state_[i]);
}

}  // namespace topkfs
