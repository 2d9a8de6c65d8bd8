#pragma once
// Waiting for another thread of a WorkerTeam: poll briefly, then sleep in the
// kernel (a futex) until the other thread signals. The waits of a team step
// are mostly far shorter than a kernel wake-up, hence the polling; but on a
// busy machine the member waited for may have lost its core, and a waiter
// that kept polling would hold the very core it needs (the passive wait of
// OpenMP's OMP_WAIT_POLICY). How long to poll adapts: a wait that had to
// sleep halves the next poll, one that ended while polling doubles it, so
// that on an idle machine the members poll as long as their waits last and
// on a busy one they go to sleep almost at once (docs/reliability.md,
// "Threads under load").
#include <atomic>
#include <cstdint>

namespace topkfs {

class WaitPoint {
 public:
  // Returns once ready() holds. ready() must become true only through a
  // change that the changing thread follows with signal().
  template <typename Ready>
  void wait_until(Ready ready) {
    if (poll(ready)) return;
    sleepers_.fetch_add(1);
    for (;;) {
      const std::uint32_t seen = word_.load();
      if (ready()) break;
      sleep_while(seen);
    }
    sleepers_.fetch_sub(1);
  }

  // Wakes the sleeping waiters, after a change that may make them ready.
  void signal() {
    word_.fetch_add(1);
    if (sleepers_.load() > 0) wake_all();
  }

 private:
  // Polls ready() for the current polling time; true when it held.
  template <typename Ready>
  bool poll(Ready ready) {
    const std::int64_t budget = poll_nanoseconds_.load(std::memory_order_relaxed);
    const std::int64_t deadline = now_nanoseconds() + budget;
    for (;;) {
      for (int i = 0; i < kChecksPerClockRead; ++i) {
        if (ready()) {
          adapt(budget, true);
          return true;
        }
        pause();
      }
      if (now_nanoseconds() > deadline) break;
    }
    adapt(budget, false);
    return false;
  }
  void adapt(std::int64_t budget, bool in_time);
  static std::int64_t now_nanoseconds();
  static void pause();
  void sleep_while(std::uint32_t seen);  // returns once word_ != seen, or spuriously
  void wake_all();

  static constexpr int kChecksPerClockRead = 64;
  std::atomic<std::uint32_t> word_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<std::int64_t> poll_nanoseconds_{kMaxPollNanoseconds};

 public:
  // The bounds of the polling time. The longest is the longest wait inside
  // one step on an idle machine (a member's share of a kernel); the
  // shortest, a few checks' worth, is still taken on a busy machine, as a
  // wait that ends while polling costs no kernel round trip.
  static constexpr std::int64_t kMinPollNanoseconds = 5'000;
  static constexpr std::int64_t kMaxPollNanoseconds = 300'000;
};

}  // namespace topkfs
