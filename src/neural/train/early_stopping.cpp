#include "early_stopping.hpp"

namespace topkfs {

bool EarlyStopping::stop_after(int epoch, int epochs, const std::optional<double>& val_loss,
                               LoopModel& model) {
  if (!val_loss) {
    state_.best_epoch = epoch;
    return false;
  }
  if (*val_loss < state_.best_val) {
    state_.best_val = *val_loss;
    state_.best_epoch = epoch;
    state_.best_state.clear();
    for (const auto& tensor : model.state()) state_.best_state.push_back(tensor.detach().clone());
    state_.epochs_without_improvement = 0;
    return false;
  }
  // The count starts only once the schedule is over.
  const bool counted = static_cast<double>(epoch) / epochs >= schedule_end_;
  if (patience_ > 0 && counted && ++state_.epochs_without_improvement >= patience_) {
    state_.stopped_early = true;
    return true;
  }
  return false;
}

void EarlyStopping::restore_best(LoopModel& model) const {
  if (state_.best_state.empty()) return;
  torch::NoGradGuard no_grad;
  auto state = model.state();
  for (std::size_t i = 0; i < state.size(); ++i) state[i].copy_(state_.best_state[i]);
}

}  // namespace topkfs
