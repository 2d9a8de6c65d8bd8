#include "child_process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "topkfs/io/resource_limits.hpp"

namespace topkfs::test {
namespace {

int report_fd = -1;

// The data segment this process already has (VmData, which RLIMIT_DATA
// counts), in bytes; 0 when it cannot be read.
unsigned long data_segment_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmData:", 0) == 0) return std::strtoul(line.c_str() + 7, nullptr, 10) << 10;
  }
  return 0;
}

// Gives the child `memory_limit` bytes beyond what it inherited: RLIMIT_DATA
// counts the heap the test process had grown before the fork (other tests'
// data, hundreds of megabytes after the HDF5 and MAT tests), so a limit of
// `memory_limit` alone would leave the reader less than it is told it has.
// The library's memory limit tells the reader its budget, which RLIMIT_DATA
// now exceeds.
void limit_memory(unsigned long memory_limit) {
  const unsigned long data = data_segment_bytes() + memory_limit;
  const struct rlimit limit { data, data };
  ::setrlimit(RLIMIT_DATA, &limit);
  ResourceLimits limits = resource_limits();
  limits.memory_bytes = memory_limit;
  set_resource_limits(limits);
}

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
    if (memory_limit > 0) limit_memory(memory_limit);
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
