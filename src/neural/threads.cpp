// Thread counts for libtorch, OpenMP and OpenBLAS, set together: left alone,
// the three pools oversubscribe a small machine and two threads ran slower than
// one (docs/method.md §4, "Threads").
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

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

// The runnable tasks of the whole machine besides the caller, the fewest of
// a few looks 2 ms apart (one look catches short bursts), from the kernel's
// procs_running; -1 when unknown.
int other_runnable_tasks() {
  int fewest = -1;
  for (int look = 0; look < 5; ++look) {
    if (look > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::ifstream stat("/proc/stat");
    std::string key;
    long value = 0;
    while (stat >> key) {
      if (key == "procs_running" && stat >> value) break;
      stat.ignore(1 << 20, '\n');
    }
    if (key != "procs_running") return -1;
    const int others = static_cast<int>(std::max(0L, value - 1));
    fewest = fewest < 0 ? others : std::min(fewest, others);
  }
  return fewest;
}

}  // namespace

int configure_threads(int threads, ThreadUse use) {
  if (threads <= 0) {
    threads = usable_cores();
    // The default team takes the cores that are free: its members meet
    // several times a step, and with a member waiting for a core that other
    // work holds the team ran slower than one thread (docs/reliability.md,
    // "Threads under load").
    if (use == ThreadUse::Team) {
      const int others = other_runnable_tasks();
      if (others > 0) threads = std::max(1, threads - others);
    }
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
