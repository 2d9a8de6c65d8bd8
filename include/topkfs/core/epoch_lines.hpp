#pragma once
// Which epochs get a line of their own in the progress a user sees (the
// command's stderr, Python's verbose fit). One line per epoch floods a log
// when epochs are quick: on small data dnn-top runs 2000 epochs in a few
// seconds. So a line is kept for the first epoch, the last scheduled one,
// and otherwise at most one every `interval_seconds` of the fit; epochs of
// that length or longer still get a line each. An early-stopped fit's last
// line may be before its stopping epoch: the result's history has them all.
#include "topkfs/core/callbacks.hpp"

namespace topkfs {

class EpochLineSchedule {
 public:
  explicit EpochLineSchedule(double interval_seconds = 2.0) : interval_(interval_seconds) {}

  // True when the epoch that `progress` ends should be shown as a line.
  // Only end-of-epoch reports are considered; a new fit (epoch 1) starts
  // the schedule again, as `evaluate` runs many fits through one display.
  bool keep(const Progress& progress) {
    if (!progress.epoch_done) return false;
    const bool first = progress.epoch <= 1;
    const bool last = progress.epoch >= progress.epochs;
    if (!first && !last && progress.elapsed_seconds - last_kept_ < interval_) return false;
    last_kept_ = progress.elapsed_seconds;
    return true;
  }

 private:
  double interval_;
  double last_kept_ = 0.0;
};

}  // namespace topkfs
