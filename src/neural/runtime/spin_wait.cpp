#include "spin_wait.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <ctime>

namespace topkfs {
namespace {

// The futex word: std::atomic<std::uint32_t> is a plain 32-bit word.
std::uint32_t* futex_address(std::atomic<std::uint32_t>& word) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return reinterpret_cast<std::uint32_t*>(&word);
}

}  // namespace

void WaitPoint::adapt(std::int64_t budget, bool in_time) {
  const std::int64_t next = in_time ? std::min(kMaxPollNanoseconds, 2 * budget)
                                    : std::max(kMinPollNanoseconds, budget / 2);
  if (next != budget) poll_nanoseconds_.store(next, std::memory_order_relaxed);
}

std::int64_t WaitPoint::now_nanoseconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void WaitPoint::pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void WaitPoint::sleep_while(std::uint32_t seen) {
  // Returns at once when the word no longer holds `seen` (the kernel compares
  // under its own lock, so a signal() between the caller's check and this
  // call is not lost), on a wake-up, or spuriously (EINTR).
  ::syscall(SYS_futex, futex_address(word_), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
}

void WaitPoint::wake_all() {
  ::syscall(SYS_futex, futex_address(word_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace topkfs
