#include "child_process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <exception>

namespace topkfs::test {
namespace {

int report_fd = -1;

}  // namespace

void report(const std::string& text) {
  if (report_fd >= 0 && !text.empty()) {
    [[maybe_unused]] const auto written = ::write(report_fd, text.data(), text.size());
  }
}

ChildResult run_in_child(void (*body)(const std::string& argument), const std::string& argument,
                         unsigned long memory_limit) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    report_fd = pipe_fds[1];
    if (memory_limit > 0) {
      const struct rlimit limit { memory_limit, memory_limit };
      ::setrlimit(RLIMIT_DATA, &limit);
    }
    try {
      body(argument);
    } catch (const std::exception& error) {
      report(error.what());
    }
    ::_exit(0);  // no gtest teardown, no static destructors in the child
  }
  ::close(pipe_fds[1]);
  ChildResult result;
  char buffer[4096];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) {
    result.message.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exited = WIFEXITED(status);
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return result;
}

}  // namespace topkfs::test
