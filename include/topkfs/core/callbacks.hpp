#pragma once
// The library never prints: it reports through these callbacks, and the CLI
// (progress bar on stderr) or the Python package decides what to show.
#include <functional>
#include <optional>
#include <string>

#include "topkfs/core/rank_group.hpp"

namespace topkfs {

// What a fit's steps are. The neural methods train in epochs of
// minibatches. The linear methods walk a regularization path: each point is
// reported as one step of one batch (`epoch`: the point, `epochs`: the
// path's length, or the point it stopped at; `loss`: the point's
// objective), so that the progress reads "path point 37/100", not "epoch 1/1".
enum class ProgressUnit { Epochs, PathPoints };

struct Progress {
  int epoch = 0;  // 1-based
  int epochs = 0;
  long batch = 0;  // 1-based within the epoch
  long batches = 0;
  double loss = 0.0;               // running mean of the training loss this epoch
  std::optional<double> val_loss;  // of the previous complete epoch
  double elapsed_seconds = 0.0;    // since the fit started
  bool epoch_done = false;         // true on the last call of an epoch
  ProgressUnit unit = ProgressUnit::Epochs;
  // A data-parallel fit: the time a step waited for the sum of the
  // gradients over the ranks, in milliseconds, on average over the fit's
  // steps so far.
  std::optional<double> sum_wait_ms = std::nullopt;
};

enum class LogLevel { Info, Warning };

// Training checkpoints, for the methods that can resume
// (Selector::resumable()): the training state is written to `path` at the
// end of every `every`-th epoch (and the last), atomically; with `resume`, a
// fit whose checkpoint exists continues from it. `run` is the identity of
// the run beyond the training loop's own settings (method, options, k, as
// JSON text), which a resumed fit must match.
struct CheckpointSettings {
  std::string path;  // none when empty
  int every = 1;
  bool resume = false;
  std::string run;
};

// What the caller gives a fit besides the method's options: where progress
// and messages go, where checkpoints go, and the ranks it trains with.
struct FitCallbacks {
  std::function<void(const Progress&)> progress;
  std::function<void(LogLevel, const std::string&)> log;
  CheckpointSettings checkpoint;
  // A data-parallel fit (docs/scale.md): this process is one rank of these,
  // learns from its shard of the rows and sums with the others; null: this
  // process alone. Only methods whose Selector::data_parallel() is true
  // honour it.
  RankGroup* ranks = nullptr;

  void report(const Progress& p) const {
    if (progress) progress(p);
  }
  void info(const std::string& message) const {
    if (log) log(LogLevel::Info, message);
  }
  void warn(const std::string& message) const {
    if (log) log(LogLevel::Warning, message);
  }
};

}  // namespace topkfs
