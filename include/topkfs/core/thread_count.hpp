#pragma once
// The range of every --threads option (methods, the evaluation's trees).
#include <fmt/format.h>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {

// More threads than cores only adds switching; far more exhausts what the
// OpenMP runtime can start: Debian 12's libgomp crashed at 65,536 threads
// and failed to start them at 32,768. 1024 is far above any core count a fit
// here can use and far below those.
inline constexpr int kMaxThreads = 1024;

// Throws OptionError unless `threads` is in 0..kMaxThreads. 0 leaves the
// count to the method: every core (the trees), or the cores other work
// leaves free when the fit starts (the linear methods, dnn-top's MLP team).
inline void check_thread_count(int threads) {
  if (threads < 0 || threads > kMaxThreads) {
    throw OptionError(fmt::format("{} must be in 0..{} (0: a count chosen from the cores), got {}",
                                  option_ref("threads"), kMaxThreads, threads));
  }
}

}  // namespace topkfs
