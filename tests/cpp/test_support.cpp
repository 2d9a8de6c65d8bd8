#include "test_support.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "topkfs/core/random.hpp"

namespace topkfs::test {

bool path_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

namespace {

// Owns the process's scratch directory and removes it when the test program
// ends, so repeated runs do not pile up folders under /tmp.
struct ScratchDirectory {
  std::string path;
  ScratchDirectory() {
    std::string pattern = "/tmp/topkfs-test-XXXXXX";
    const char* made = ::mkdtemp(pattern.data());
    if (made == nullptr) std::abort();
    path = made;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

std::string temp_dir() {
  static const ScratchDirectory dir;
  return dir.path;
}

std::string write_temp_file(const std::string& name, const std::string& content) {
  const std::string path = temp_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << content;
  return path;
}

std::string linear_planted_csv(const std::string& name, int rows, std::uint64_t seed) {
  Rng rng(seed);
  std::string text = "a,b,c,d,e,y\n";
  for (int i = 0; i < rows; ++i) {
    const double a = rng.normal(), b = rng.normal(), c = rng.normal(), d = rng.normal();
    const double e = rng.normal();
    text += fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", a, b, c, d, e,
                        a - 2 * c + 0.2 * rng.normal());
  }
  return write_temp_file(name, text);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

long resident_kb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0;
  long resident = 0;
  statm >> pages >> resident;
  return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

ChildPeak run_in_child_with_peak_memory(const std::function<bool()>& work) {
  const long before = resident_kb();
  const pid_t child = ::fork();
  if (child < 0) return {};
  if (child == 0) {
    bool ok = false;
    try {
      ok = work();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(child, &status, 0, &usage) != child) return {};
  return {WIFEXITED(status) && WEXITSTATUS(status) == 0, usage.ru_maxrss - before};
}

CommandResult run_command(const std::string& command) {
  static int counter = 0;
  const std::string base = temp_dir() + "/cmd" + std::to_string(++counter);
  const std::string full = command + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_text(base + ".out");
  result.err = read_text(base + ".err");
  return result;
}

CommandResult run_cli(const std::string& args) {
  return run_command(std::string(TOPKFS_CLI_PATH) + " " + args);
}

}  // namespace topkfs::test
