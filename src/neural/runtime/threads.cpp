// Thread counts for libtorch, OpenMP and OpenBLAS, set together: left alone,
// the three pools oversubscribe a small machine and two threads ran slower than
// one (docs/method.md §4, "Threads"). They are set for a fit only: its
// caller holds a ThreadSettingsScope (topkfs/core/thread_settings.hpp).
#include <ATen/Parallel.h>
#include <omp.h>

#include <algorithm>

#include "threads.hpp"
#include "topkfs/core/cpu_share.hpp"

namespace topkfs {

int configure_threads(int threads, ThreadUse use) {
  if (use == ThreadUse::Serial) threads = 1;
  if (threads <= 0) {
    // The default team takes the cores that are free: its members meet
    // several times a step, and with a member waiting for a core that other
    // work holds the team ran slower than one thread (docs/reliability.md,
    // "Threads under load").
    threads = use == ThreadUse::Team ? free_cores() : usable_cores();
  }
  // A team's members wait for each other by spinning several times a step:
  // with more members than cores they mostly wait, so the team stops at the
  // cores (bench/speed/README.md, "Measurements behind the code").
  if (use == ThreadUse::Team) threads = std::min(threads, usable_cores());
  // libtorch's inter-op pool is left as it is: it starts only for graphs
  // run with at::launch, which training does not use, and its size can be
  // set once per process only (a setting a fit could not put back).
  const int pool = use == ThreadUse::All ? threads : 1;
  at::set_num_threads(pool);
  omp_set_num_threads(pool);
  set_openblas_threads(use == ThreadUse::Team || use == ThreadUse::Serial ? 1 : threads);
  return threads;
}

}  // namespace topkfs
