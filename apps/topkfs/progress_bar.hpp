#pragma once
// Training progress on stderr: a redrawn bar on a terminal, one line per epoch
// otherwise (logs stay readable), nothing with --quiet.
#include <chrono>

#include "topkfs/core/callbacks.hpp"

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
};

// Callbacks that draw `bar` and print log messages to stderr.
FitCallbacks make_callbacks(ProgressBar& bar, bool quiet);

}  // namespace topkfs::cli
