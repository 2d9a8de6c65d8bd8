#include "topkfs/core/cpu_share.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace topkfs {
namespace {

// The runnable tasks of the whole machine besides the caller, the fewest of
// a few looks; -1 when unknown.
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

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

int CoreLoad::free() const { return others > 0 ? std::max(1, usable - others) : usable; }

CoreLoad measure_core_load() { return {usable_cores(), other_runnable_tasks()}; }

int free_cores() { return measure_core_load().free(); }

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

int openblas_threads() {
  using Getter = int (*)();
  auto getter = reinterpret_cast<Getter>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return getter != nullptr ? getter() : -1;
}

}  // namespace topkfs
