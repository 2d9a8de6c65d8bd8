#include "progress_bar.hpp"

#include "command_spelling.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "topkfs/core/progress_text.hpp"

namespace topkfs::cli {
namespace {

std::string clock_text(double seconds) {
  const long total = static_cast<long>(seconds + 0.5);
  return total >= 3600 ? fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60)
                       : fmt::format("{}:{:02}", total / 60, total % 60);
}

}  // namespace

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled), terminal_(::isatty(2) != 0) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::finish() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

void ProgressBar::update(const Progress& p) {
  if (!enabled_) return;
  const double done =
      (p.epoch - 1 + static_cast<double>(p.batch) / static_cast<double>(std::max(1L, p.batches))) /
      std::max(1, p.epochs);
  const double left = done > 0 ? p.elapsed_seconds * (1 - done) / done : 0.0;
  // A data-parallel fit shows how long a step waits for the ranks' sum.
  const std::string val = (p.val_loss ? fmt::format(" val {:.4f}", *p.val_loss) : "") +
                          (p.sum_wait_ms ? fmt::format(" sum {:.2f} ms/step", *p.sum_wait_ms) : "");
  const bool keep_line = lines_.keep(p);
  if (!terminal_) {
    if (keep_line) {
      fmt::print(stderr, "{}{}  {} elapsed, ~{} left (at most)\n", progress_line(p), val,
                 clock_text(p.elapsed_seconds), clock_text(left));
    }
    return;
  }
  // The bar is redrawn in place at most every 0.1 s; an epoch's end is
  // drawn and left on its own line only when the schedule keeps it. It
  // fills with the epoch's batches, or along a linear method's path.
  const auto now = std::chrono::steady_clock::now();
  if (!keep_line && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const bool path = p.unit == ProgressUnit::PathPoints;
  constexpr int kWidth = 24;
  const double fraction = path ? done : static_cast<double>(p.batch) / std::max(1L, p.batches);
  const int filled = std::clamp(static_cast<int>(kWidth * fraction), 0, kWidth);
  const std::string bar = fmt::format("[{}{}]", std::string(static_cast<std::size_t>(filled), '='),
                                      std::string(static_cast<std::size_t>(kWidth - filled), ' '));
  const std::string text =
      path ? fmt::format("path {} point {}/{} objective {:.4f}", bar, p.epoch, p.epochs, p.loss)
           : fmt::format("epoch {}/{} {} batch {}/{} loss {:.4f}{}", p.epoch, p.epochs, bar,
                         p.batch, p.batches, p.loss, val);
  fmt::print(stderr, "\r\033[K{} | {} left", text, clock_text(left));
  drawn_ = true;
  if (keep_line) {
    std::fputs("\n", stderr);
    drawn_ = false;
  }
}

FitCallbacks make_callbacks(ProgressBar& bar, bool quiet) {
  FitCallbacks callbacks;
  callbacks.progress = [&bar](const Progress& p) { bar.update(p); };
  callbacks.log = [&bar, quiet](LogLevel level, const std::string& message) {
    if (quiet && level == LogLevel::Info) return;
    bar.finish();
    fmt::print(stderr, "topkfs: {}{}\n", level == LogLevel::Warning ? "warning: " : "",
               for_command_line(message));
  };
  return callbacks;
}

}  // namespace topkfs::cli
