#pragma once
// A fixed team of threads for the fork-join steps of data-parallel training:
// run(task) calls task(member) on every member at once, member 0 on the
// calling thread, and returns when all are done. A training step forks and
// joins three times in under two milliseconds, so members poll briefly
// before they sleep rather than start a thread per step or be woken through
// the kernel at every fork: both cost a large part of the 2-core speed-up
// (bench/speed/README.md, "Measurements behind the code"). Every wait polls, then
// sleeps (WaitPoint), so that a member whose partner lost its core on a busy
// machine gives its own core up.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "neural/runtime/spin_wait.hpp"

namespace topkfs {

class WorkerTeam {
 public:
  // `size` members: the caller and size - 1 new threads. Each new thread
  // runs libtorch's elementwise kernels on itself alone.
  explicit WorkerTeam(int size);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()) + 1; }

  // Runs task(0) .. task(size - 1) at once; when any throws, rethrows the
  // failure of the lowest member after all have finished.
  void run(const std::function<void(int member)>& task);

 private:
  void member_loop(int member);
  void run_member(int member);

  std::vector<std::thread> threads_;
  WaitPoint started_;   // the members wait here for the next task
  WaitPoint finished_;  // the caller waits here for the members
  const std::function<void(int)>* task_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::exception_ptr> failures_;
};

// Thrown by SpinBarrier::wait() once the barrier is aborted.
struct BarrierAborted : std::exception {
  const char* what() const noexcept override { return "a team member failed"; }
};

// A barrier for the members of one WorkerTeam::run, for phases that are far
// shorter than a kernel wake-up: waiters poll, and sleep when the wait lasts
// (the member they wait for was preempted, WaitPoint). A member that fails
// between barriers abort()s, so that the others throw BarrierAborted instead
// of waiting forever.
class SpinBarrier {
 public:
  explicit SpinBarrier(int parties) : parties_(parties) {}

  // Returns when all parties have called wait() for this phase; what each did
  // before it is visible to all after it.
  void wait();
  // Makes every present and future wait() throw until reset(); true for the
  // first caller.
  bool abort();
  // Ready for use again, by `parties` parties from now on; only while no one
  // waits.
  void reset(int parties);

 private:
  int parties_;
  std::atomic<int> arrived_{0};
  std::atomic<std::uint64_t> phase_{0};
  std::atomic<bool> aborted_{false};
  WaitPoint passed_;  // signalled when a phase ends or the barrier is aborted
};

}  // namespace topkfs
