#pragma once
// The thread counts a fit sets are the process's: OpenBLAS's (NumPy's too,
// in Python, when both use the same OpenBLAS) and OpenMP's, which is also
// libtorch's intra-op count. A ThreadSettingsScope notes them when it is
// made and puts them back when it ends, as threadpoolctl's limits do, so that
// a fit leaves the process's threads as it found them (docs/python.md,
// "Threads"). fit_on_rows, evaluate_methods and run_auto_selection hold one
// for their call.
// Either library is reached through the process's symbols (dlsym), so a
// process without it is left alone.
namespace topkfs {

class ThreadSettingsScope {
 public:
  ThreadSettingsScope();
  ~ThreadSettingsScope();
  ThreadSettingsScope(const ThreadSettingsScope&) = delete;
  ThreadSettingsScope& operator=(const ThreadSettingsScope&) = delete;

 private:
  int blas_threads_;    // -1: no OpenBLAS in the process
  int openmp_threads_;  // -1: no OpenMP runtime in the process
};

}  // namespace topkfs
