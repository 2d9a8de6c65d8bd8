#pragma once
// Private to the I/O library's signal handlers (temporary_files.cpp,
// mapping_faults.cpp): each is installed by the program, over whatever
// handler was there, and passes a signal that is not its business on.
// (A SIGBUS from a fault cannot be ignored: the kernel ends the process.)
#include <signal.h>

namespace topkfs::detail {

// Installs `handler` (with siginfo) for `signal_number` over the handler in
// force, which it stores in `previous`; a signal the process ignores (nohup)
// stays ignored.
inline void install_over(int signal_number, void (*handler)(int, siginfo_t*, void*),
                         struct sigaction& previous) {
  ::sigaction(signal_number, nullptr, &previous);
  if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
}

// Calls the handler `previous` names for `signal_number`, if it names a
// function (not SIG_DFL or SIG_IGN); returns whether it did.
// Async-signal-safe.
inline bool pass_to_previous(const struct sigaction& previous, int signal_number, siginfo_t* info,
                             void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0) {
    if (previous.sa_sigaction == nullptr) return false;
    previous.sa_sigaction(signal_number, info, context);
    return true;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) return false;
  previous.sa_handler(signal_number);
  return true;
}

}  // namespace topkfs::detail
