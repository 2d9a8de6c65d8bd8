// Thread counts for libtorch, OpenMP and OpenBLAS, set together: left alone,
// the three pools oversubscribe a small machine and two threads ran slower than
// one (docs/method.md §4, "Threads").
#include <ATen/Parallel.h>
#include <omp.h>

#include <algorithm>

#include "threads.hpp"
#include "topkfs/core/cpu_share.hpp"

namespace topkfs {

int configure_threads(int threads, ThreadUse use) {
  if (threads <= 0) {
    // The default team takes the cores that are free: its members meet
    // several times a step, and with a member waiting for a core that other
    // work holds the team ran slower than one thread (docs/reliability.md,
    // "Threads under load").
    threads = use == ThreadUse::Team ? free_cores() : usable_cores();
  }
  // A team's members wait for each other by spinning several times a step:
  // with more members than cores they mostly wait, so the team stops at the
  // cores (bench/README.md, "Measurements behind the code").
  if (use == ThreadUse::Team) threads = std::min(threads, usable_cores());
  static bool interop_set = false;
  if (!interop_set) {
    // Inter-op parallelism only helps graphs with independent branches; one
    // thread keeps it from competing with the intra-op pool. It can be set once
    // per process only.
    try {
      at::set_num_interop_threads(1);
    } catch (...) {
    }
    interop_set = true;
  }
  const int pool = use == ThreadUse::All ? threads : 1;
  at::set_num_threads(pool);
  omp_set_num_threads(pool);
  set_openblas_threads(use == ThreadUse::Team ? 1 : threads);
  return threads;
}

}  // namespace topkfs
