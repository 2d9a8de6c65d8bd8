#pragma once
// The library never prints: it reports through these callbacks, and the CLI
// (progress bar on stderr) or the Python package decides what to show.
#include <functional>
#include <optional>
#include <string>

namespace topkfs {

struct Progress {
  int epoch = 0;  // 1-based
  int epochs = 0;
  long batch = 0;  // 1-based within the epoch
  long batches = 0;
  double loss = 0.0;               // running mean of the training loss this epoch
  std::optional<double> val_loss;  // of the previous complete epoch
  double elapsed_seconds = 0.0;    // since the fit started
  bool epoch_done = false;         // true on the last call of an epoch
};

enum class LogLevel { Info, Warning };

struct FitCallbacks {
  std::function<void(const Progress&)> progress;
  std::function<void(LogLevel, const std::string&)> log;

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
