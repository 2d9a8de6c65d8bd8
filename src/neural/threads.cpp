// Thread counts for libtorch, OpenMP and OpenBLAS, set together: left alone,
// the three pools oversubscribe a small machine and two threads ran slower than
// one (docs/method.md §4, "Threads").
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>

#include "threads.hpp"

namespace topkfs {
namespace {

// OpenBLAS is reached through Debian's libblas.so.3 alternative, so its
// setter is looked up at run time rather than linked.
void set_openblas_threads(int threads) {
  using Setter = void (*)(int);
  for (const char* symbol : {"openblas_set_num_threads", "goto_set_num_threads"}) {
    if (auto setter = reinterpret_cast<Setter>(::dlsym(RTLD_DEFAULT, symbol))) {
      setter(threads);
      return;
    }
  }
}

// The cores this process may run on (taskset and cpusets included).
int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace

int configure_threads(int threads, ThreadUse use) {
  if (threads <= 0) threads = usable_cores();
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
