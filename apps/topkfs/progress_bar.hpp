#pragma once
// Training progress on stderr: a redrawn bar on a terminal, lines otherwise
// (logs stay readable), nothing with --quiet. Either keeps a line for the
// epochs that topkfs/core/epoch_lines.hpp schedules, not for every epoch.
#include <chrono>

#include "topkfs/core/callbacks.hpp"
#include "topkfs/core/epoch_lines.hpp"

namespace topkfs::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  void update(const Progress& progress);
  // Clears a partly drawn bar before other text goes to stderr.
  void finish();

 private:
  bool enabled_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
  EpochLineSchedule lines_;
};

// Callbacks that draw `bar` and print log messages to stderr.
FitCallbacks make_callbacks(ProgressBar& bar, bool quiet);

}  // namespace topkfs::cli
