#pragma once
// How many cores a fit may use, and OpenBLAS's thread count. Shared by the
// neural team and the linear methods' products: on a busy machine a thread
// that waits for a partner without a core holds the whole step up.
namespace topkfs {

// The cores this process may run on (taskset and cpusets included).
int usable_cores();

// The usable cores that no other runnable task of the machine holds when
// called (at least one): the default thread count of a fit, so that on a
// busy machine a fit does not split its work with a thread that has no
// core. Looks at the kernel's procs_running a few times, 2 ms apart (one
// look catches short bursts), and takes the fewest; all usable cores when
// the kernel does not say.
int free_cores();

// What free_cores() measures: the usable cores and the fewest other
// runnable tasks of the machine seen (-1: the kernel does not say).
struct CoreLoad {
  int usable = 1;
  int others = -1;
  int free() const;
};
CoreLoad measure_core_load();

// OpenBLAS's thread count (a BLAS without the setter ignores it).
void set_openblas_threads(int threads);
// OpenBLAS's thread count in force; -1 for a BLAS without the getter.
int openblas_threads();

}  // namespace topkfs
