#include "topkfs/core/thread_settings.hpp"

#include <dlfcn.h>

#include "topkfs/core/cpu_share.hpp"

namespace topkfs {
namespace {

using Getter = int (*)();
using Setter = void (*)(int);

// OpenMP's count of the calling thread (its nthreads-var, which
// omp_set_num_threads sets for the thread that calls it: a fit sets it on
// the thread it runs on, and the scope lives there too).
Getter openmp_getter() {
  return reinterpret_cast<Getter>(::dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
}
Setter openmp_setter() {
  return reinterpret_cast<Setter>(::dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
}

}  // namespace

ThreadSettingsScope::ThreadSettingsScope()
    : blas_threads_(openblas_threads()), openmp_threads_(-1) {
  if (const Getter get = openmp_getter()) openmp_threads_ = get();
}

ThreadSettingsScope::~ThreadSettingsScope() {
  if (blas_threads_ > 0) set_openblas_threads(blas_threads_);
  if (openmp_threads_ > 0) {
    if (const Setter set = openmp_setter()) set(openmp_threads_);
  }
}

}  // namespace topkfs
