#pragma once
// The one clock of the library's timings (fit_seconds, the per-epoch and
// per-sweep history, the evaluation's wall time): steady, so that a change of
// the wall clock during a long fit never gives a negative or inflated time.
#include <chrono>

namespace topkfs {

using Clock = std::chrono::steady_clock;

// Seconds elapsed since `start`, as a double (the unit of every timing the
// library reports).
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace topkfs
