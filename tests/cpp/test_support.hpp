#pragma once
// Helpers shared by the GoogleTest suites: where the shared datasets and the
// fixtures are, temporary files, running the CLI.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/resource_limits.hpp"

namespace topkfs::test {

// Whether this build runs under ASan or TSan, whose shadow memory and
// quarantine of freed blocks change what a process's memory use means.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// A child's peak resident memory above its parent's at the fork may exceed
// a bound by this much under a sanitizer: ASan keeps up to 256 MB of freed
// blocks in quarantine and adds its shadow, an eighth of what is mapped.
constexpr long kSanitizerPeakAllowanceKb = kSanitized ? 400L * 1024 : 0;

// ../shared/data beside the checkout, or $TOPKFS_DATA_DIR.
inline std::string shared_data_dir() {
  if (const char* env = std::getenv("TOPKFS_DATA_DIR")) return env;
  return TOPKFS_SHARED_DATA_DIR;
}

inline std::string shared_data(const std::string& relative) {
  return shared_data_dir() + "/" + relative;
}

inline std::string fixture(const std::string& name) {
  return std::string(TOPKFS_FIXTURES_DIR) + "/" + name;
}

// The row indices first, first + 1, ..., first + n - 1.
inline std::vector<std::int64_t> iota_rows(std::int64_t n, std::int64_t first = 0) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), first);
  return rows;
}

// A fresh directory under /tmp, one per test process, removed at exit.
std::string temp_dir();
// The path of `name` in temp_dir() (the file need not exist).
inline std::string in_temp(const std::string& name) { return temp_dir() + "/" + name; }
// Writes `content` to a new file in temp_dir() and returns its path.
std::string write_temp_file(const std::string& name, const std::string& content);
// A CSV `name` in temp_dir() of `rows` rows: columns a..e and the target y =
// a - 2 c + noise (b, d, e are noise), drawn from Rng(seed).
std::string linear_planted_csv(const std::string& name, int rows, std::uint64_t seed);
// The whole file at `path` (empty when it cannot be read).
std::string read_text(const std::string& path);

// Sets an environment variable for one test (each ctest case is a process,
// but a test must not leak it into the next one run by hand).
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnvironment() { ::unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
};

// Sets one of the library's limit variables (TOPKFS_MEMORY_LIMIT,
// TOPKFS_HDF5_READER_*) for one test and gives the library the limits of the
// environment, as the command and the Python package do at their start (the
// library reads no variable itself); both are put back after.
class ScopedLimitsFromEnvironment {
 public:
  ScopedLimitsFromEnvironment(const char* name, const char* value)
      : previous_(resource_limits()), variable_(name, value) {
    set_resource_limits(resource_limits_from_environment());
  }
  ~ScopedLimitsFromEnvironment() { set_resource_limits(previous_); }
  ScopedLimitsFromEnvironment(const ScopedLimitsFromEnvironment&) = delete;
  ScopedLimitsFromEnvironment& operator=(const ScopedLimitsFromEnvironment&) = delete;

 private:
  ResourceLimits previous_;
  ScopedEnvironment variable_;
};

// What a function run in a forked child did: whether it returned true, and
// how far the child's peak resident memory rose above this process's
// resident memory at the fork, in KB.
struct ChildPeak {
  bool ok = false;
  long growth_kb = 0;
};
// Runs `work` in a child process (an exception counts as false). For bounds
// on what a read takes, without the test process's own history in the way.
ChildPeak run_in_child_with_peak_memory(const std::function<bool()>& work);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the topkfs executable with `args` (a shell-quoted string).
CommandResult run_cli(const std::string& args);
// Runs any shell command, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

// A library message as the command shows it: its option references
// (core/option_ref.hpp) spelled as flags, so that a test reads "--alpha".
inline std::string as_command_line(const std::string& message) {
  return render_option_refs(message, command_line_spelling);
}

// The message of the `Exception` that `call` throws, as the command shows it;
// "" (and a test failure) when it throws nothing.
template <typename Exception, typename Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const Exception& error) {
    return as_command_line(error.what());
  }
  ADD_FAILURE() << "no exception of the expected type";
  return "";
}

// The message of the DataError that reading `path` throws ("" if none).
inline std::string data_error(const std::string& path, const ReadOptions& options = {}) {
  return error_of<DataError>([&] { read_dataset(path, options); });
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Reading `path` is refused cleanly: a DataError (no crash of this process,
// no other error) whose message starts with the file's path. For corrupt
// HDF5 files, whose refusal may come from libhdf5's own error, its crash or
// its loop in the HDF5 reader program, or the reader's checks.
inline void expect_refused_naming_the_file(const std::string& path,
                                           const ReadOptions& options = {}) {
  const std::string message = data_error(path, options);
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
}

}  // namespace topkfs::test

// Skips the test (with the reason) when ../shared/data/<folder> is absent.
#define TOPKFS_REQUIRE_SHARED_DATA(folder)                                            \
  do {                                                                                \
    if (!::topkfs::test::path_exists(::topkfs::test::shared_data(folder))) {          \
      GTEST_SKIP() << "shared dataset folder " << ::topkfs::test::shared_data(folder) \
                   << " is absent (set TOPKFS_DATA_DIR to the shared data folder)";   \
    }                                                                                 \
  } while (0)

namespace topkfs::test {
bool path_exists(const std::string& path);
}
