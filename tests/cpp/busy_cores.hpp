#pragma once
// Processes that spin on every core, for the tests of the thread defaults
// that leave busy cores alone. Header-only: the ThreadSanitizer build of the
// team tests links no test support library.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace topkfs::test {

class BusyCores {
 public:
  // Forks `count` spinning processes and waits until they run.
  explicit BusyCores(int count) {
    for (int i = 0; i < count; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        volatile unsigned long counter = 0;
        for (;;) counter = counter + 1;
      }
      if (pid < 0) break;  // the caller checks started()
      spinners_.push_back(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ~BusyCores() {
    for (const pid_t pid : spinners_) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  BusyCores(const BusyCores&) = delete;
  BusyCores& operator=(const BusyCores&) = delete;

  int started() const { return static_cast<int>(spinners_.size()); }

 private:
  std::vector<pid_t> spinners_;
};

}  // namespace topkfs::test
