#pragma once
// Thread counts of libtorch, OpenMP and OpenBLAS, set together by the neural
// selectors before training. Private to topkfs_neural: a user chooses threads
// through the methods' `threads` option, not by calling this.
namespace topkfs {

// Which thread pools get the threads.
//  BlasOnly: OpenBLAS gets them, libtorch's intra-op pool and OpenMP one:
//    for the MLP, whose time is in GEMMs; libtorch's OpenMP workers spin after
//    each small elementwise kernel and fight OpenBLAS's for the cores, so
//    with two threads in every pool training ran several times slower than
//    with one (bench/speed/README.md, "Measurements behind the code").
//  All: every pool gets them (the CNN's convolutions are parallel in libtorch).
//  Team: every pool gets one thread; the caller runs a team of that many
//    workers that take each training step together (the trainer's
//    batch_workers), each with its own single-threaded GEMMs; at most one
//    per core the process may use. The team cuts the work the same way
//    whatever its size (parallel_step.hpp), so the result does not depend
//    on the count.
//  Serial: every pool gets one thread whatever the count, which is then 1:
//    for the models a team cannot take (their loss draws noise per call:
//    concrete, stg, fir). Threads in libtorch's pool or OpenBLAS's would
//    cut their products and sums by the thread count, and the result's last
//    bits would follow it (docs/reliability.md, "Same selection for any
//    thread count").
enum class ThreadUse { BlasOnly, All, Team, Serial };

// Sets the thread counts of libtorch (intra-op; inter-op 1), OpenMP and
// OpenBLAS together. threads <= 0 means every core the process may use; for
// a Team, every such core that no other runnable task holds when the call is
// made (at least one), so that the default's team size, and with it the
// result's last bits, follows the machine's load; a given count is kept
// (up to the cores for a Team). Returns the count in force.
int configure_threads(int threads, ThreadUse use = ThreadUse::All);

}  // namespace topkfs
