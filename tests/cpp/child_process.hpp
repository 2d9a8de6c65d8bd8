#pragma once
// Runs a piece of a test in a forked child, for what must not happen to the
// test process itself: dying of a signal, or running under a memory limit.
#include <string>

namespace topkfs::test {

struct ChildResult {
  bool exited = false;  // returned normally
  int signal = 0;       // the signal that ended it, if one did
  std::string message;  // what the child reported through report()
};

// Forks; the child calls `body` (which may call report) and exits.
// `memory_limit` > 0 gives the child that many bytes beyond the memory it
// inherits (RLIMIT_DATA) and tells its reader so (the library's memory limit).
ChildResult run_in_child(void (*body)(const std::string& argument), const std::string& argument,
                         unsigned long memory_limit = 0);

// In the child: passes `text` back to the parent's ChildResult::message.
void report(const std::string& text);

}  // namespace topkfs::test
