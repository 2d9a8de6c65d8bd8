#include "worker_team.hpp"

#include <ATen/Parallel.h>

#include <chrono>

namespace topkfs {
namespace {

// How long a member polls before it sleeps: longer than the gap between two
// fork-joins of one step, far shorter than a human notices as idle load.
constexpr std::chrono::microseconds kSpin{300};

// Polls `ready` until it holds or kSpin has passed; true when it holds.
template <typename Ready>
bool spin_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
}

}  // namespace

WorkerTeam::WorkerTeam(int size) : failures_(static_cast<std::size_t>(size < 1 ? 1 : size)) {
  for (int member = 1; member < size; ++member) {
    threads_.emplace_back([this, member] { member_loop(member); });
  }
}

WorkerTeam::~WorkerTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerTeam::run_member(int member) {
  try {
    (*task_)(member);
  } catch (...) {
    failures_[static_cast<std::size_t>(member)] = std::current_exception();
  }
}

void WorkerTeam::run(const std::function<void(int)>& task) {
  for (auto& failure : failures_) failure = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    pending_.store(static_cast<int>(threads_.size()));
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  run_member(0);
  if (!spin_until([this] { return pending_.load() == 0; })) {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return pending_.load() == 0; });
  }
  for (const auto& failure : failures_) {
    if (failure) std::rethrow_exception(failure);
  }
}

void SpinBarrier::wait() {
  if (aborted_.load()) throw BarrierAborted();
  const std::uint64_t phase = phase_.load();
  if (arrived_.fetch_add(1) + 1 == parties_) {
    arrived_.store(0);
    phase_.fetch_add(1);
    return;
  }
  while (!spin_until([&] { return phase_.load() != phase || aborted_.load(); })) {
    std::this_thread::yield();
  }
  if (phase_.load() == phase) throw BarrierAborted();
}

bool SpinBarrier::abort() { return !aborted_.exchange(true); }

void SpinBarrier::reset() {
  arrived_.store(0);
  aborted_.store(false);
}

void WorkerTeam::member_loop(int member) {
  // OpenMP's thread count is per thread: a new thread would start at every
  // core and oversubscribe them.
  at::set_num_threads(1);
  std::uint64_t seen = 0;
  for (;;) {
    const auto changed = [&] { return generation_.load() != seen; };
    if (!spin_until(changed)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, changed);
    }
    seen = generation_.load();
    if (stopping_.load()) return;
    run_member(member);
    if (pending_.fetch_sub(1) == 1) {
      // Taking the lock orders this notify after the caller's check in wait().
      std::lock_guard<std::mutex> lock(mutex_);
      finished_.notify_one();
    }
  }
}

}  // namespace topkfs
