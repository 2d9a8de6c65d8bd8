#include "worker_team.hpp"

#include <ATen/Parallel.h>

namespace topkfs {

WorkerTeam::WorkerTeam(int size) : failures_(static_cast<std::size_t>(size < 1 ? 1 : size)) {
  for (int member = 1; member < size; ++member) {
    threads_.emplace_back([this, member] { member_loop(member); });
  }
}

WorkerTeam::~WorkerTeam() {
  stopping_.store(true);
  generation_.fetch_add(1);
  started_.signal();
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
  if (threads_.empty()) {  // a team of one: the caller alone, nothing to signal
    task(0);
    return;
  }
  for (auto& failure : failures_) failure = nullptr;
  task_ = &task;
  pending_.store(static_cast<int>(threads_.size()));
  generation_.fetch_add(1);  // publishes task_ and pending_ to the members
  started_.signal();
  run_member(0);
  finished_.wait_until([this] { return pending_.load() == 0; });
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
    passed_.signal();
    return;
  }
  passed_.wait_until([&] { return phase_.load() != phase || aborted_.load(); });
  if (phase_.load() == phase) throw BarrierAborted();
}

bool SpinBarrier::abort() {
  const bool first = !aborted_.exchange(true);
  passed_.signal();
  return first;
}

void SpinBarrier::reset(int parties) {
  parties_ = parties;
  arrived_.store(0);
  aborted_.store(false);
}

void WorkerTeam::member_loop(int member) {
  // OpenMP's thread count is per thread: a new thread would start at every
  // core and oversubscribe them.
  at::set_num_threads(1);
  std::uint64_t seen = 0;
  for (;;) {
    started_.wait_until([&] { return generation_.load() != seen; });
    seen = generation_.load();
    if (stopping_.load()) return;
    run_member(member);
    if (pending_.fetch_sub(1) == 1) finished_.signal();
  }
}

}  // namespace topkfs
