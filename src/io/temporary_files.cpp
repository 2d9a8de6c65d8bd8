#include "temporary_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace topkfs::detail {
namespace {

// Fixed storage: the handler may only read memory that nothing frees or
// moves (no std::string, no allocation).
constexpr std::size_t kSlots = 32;
constexpr std::size_t kPathBytes = 4096;
constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Slot {
  std::atomic<bool> used{false};
  char path[kPathBytes] = {};
};

std::array<Slot, kSlots> slots;
std::mutex registry_mutex;  // registration only; never taken in the handler
int remembered = 0;
std::array<struct sigaction, kSignals.size()> previous{};

// The handler in force before ours for `signal_number`.
const struct sigaction& previous_of(int signal_number) {
  std::size_t s = 0;
  while (s + 1 < kSignals.size() && kSignals[s] != signal_number) ++s;
  return previous[s];
}

void remove_temporaries_and_die(int signal_number, siginfo_t* info, void* context) {
  // A process that handles the signal itself (Python, whose handler only
  // notes it and raises KeyboardInterrupt later) goes on: the write that
  // made the temporary is unwound by that exception and removes it, so the
  // signal goes to that handler instead, and the interpreter lives.
  const struct sigaction& before = previous_of(signal_number);
  if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != nullptr) {
    before.sa_sigaction(signal_number, info, context);
    return;
  }
  if ((before.sa_flags & SA_SIGINFO) == 0 && before.sa_handler != SIG_DFL &&
      before.sa_handler != SIG_IGN) {
    before.sa_handler(signal_number);
    return;
  }
  remove_temporaries();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install_handlers() {
  struct sigaction action {};
  action.sa_sigaction = remove_temporaries_and_die;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (std::size_t s = 0; s < kSignals.size(); ++s) {
    ::sigaction(kSignals[s], nullptr, &previous[s]);
    // A signal the process ignores (nohup) stays ignored.
    if (previous[s].sa_handler == SIG_IGN) continue;
    ::sigaction(kSignals[s], &action, nullptr);
  }
}

void restore_handlers() {
  for (std::size_t s = 0; s < kSignals.size(); ++s) {
    if (previous[s].sa_handler == SIG_IGN) continue;
    ::sigaction(kSignals[s], &previous[s], nullptr);
  }
}

}  // namespace

void remove_temporaries() {
  for (auto& slot : slots) {
    if (slot.used.load()) ::unlink(slot.path);
  }
}

void remember_temporary(const std::string& path) {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto& slot : slots) {
    if (slot.used.load() || path.size() >= kPathBytes) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    if (remembered++ == 0) install_handlers();
    return;
  }
  // More temporaries at once than slots (or an over-long path): this one is
  // removed on errors but not on a signal.
}

void forget_temporary(const std::string& path) {
  const std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto& slot : slots) {
    if (slot.used.load() && path == slot.path) {
      slot.used.store(false);
      if (--remembered == 0) restore_handlers();
      return;
    }
  }
}

}  // namespace topkfs::detail
