#include "temporary_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

#include "signal_chain.hpp"
#include "topkfs/io/atomic_file.hpp"

namespace topkfs::detail {
namespace {

// Fixed storage: the handler may only read memory that nothing frees or
// moves (no std::string, no allocation).
constexpr std::size_t kTemporarySlots = 32;
constexpr std::size_t kTemporaryPathBytes = 4096;
constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Slot {
  std::atomic<bool> used{false};
  char path[kTemporaryPathBytes] = {};
};

std::array<Slot, kTemporarySlots> slots;
std::mutex temporaries_mutex;  // registration only; never taken in the handler
bool handlers_installed = false;
std::array<struct sigaction, kSignals.size()> previous_handlers{};

// The handler in force before ours for `signal_number`.
const struct sigaction& previous_of(int signal_number) {
  std::size_t s = 0;
  while (s + 1 < kSignals.size() && kSignals[s] != signal_number) ++s;
  return previous_handlers[s];
}

void remove_temporaries_and_die(int signal_number, siginfo_t* info, void* context) {
  // A program that handles the signal itself (one that only notes it and
  // unwinds later, as Python does) goes on: the write that made the
  // temporary is unwound by that and removes it, so the signal goes to that
  // handler instead, and the program lives.
  if (pass_to_previous(previous_of(signal_number), signal_number, info, context)) return;
  remove_temporaries();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void remove_temporaries() {
  for (auto& slot : slots) {
    if (slot.used.load()) ::unlink(slot.path);
  }
}

void remember_temporary(const std::string& path) {
  const std::lock_guard<std::mutex> lock(temporaries_mutex);
  for (auto& slot : slots) {
    if (slot.used.load() || path.size() >= kTemporaryPathBytes) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    return;
  }
  // More temporaries at once than slots (or an over-long path): this one is
  // removed on errors but not on a signal.
}

void forget_temporary(const std::string& path) {
  const std::lock_guard<std::mutex> lock(temporaries_mutex);
  for (auto& slot : slots) {
    if (slot.used.load() && path == slot.path) {
      slot.used.store(false);
      return;
    }
  }
}

}  // namespace topkfs::detail

namespace topkfs {

void remove_temporaries_on_termination() {
  const std::lock_guard<std::mutex> lock(detail::temporaries_mutex);
  if (detail::handlers_installed) return;
  for (std::size_t s = 0; s < detail::kSignals.size(); ++s) {
    detail::install_over(detail::kSignals[s], detail::remove_temporaries_and_die,
                         detail::previous_handlers[s]);
  }
  detail::handlers_installed = true;
}

}  // namespace topkfs
