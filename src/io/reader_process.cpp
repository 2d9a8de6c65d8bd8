#include "reader_process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mapped_file.hpp"
#include "reader_process_protocol.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/resource_limits.hpp"

extern char** environ;

namespace topkfs::detail {
namespace {

namespace protocol = reader_process;

constexpr const char* kProgramName = "topkfs-hdf5-reader";

// A reader program that has used this much processor time since its last
// progress (the file opened, a block of rows written) is in one of
// libhdf5's loops; ResourceLimits::reader_cpu_seconds overrides it.
// Processor time, not time waited: on a loaded machine a sound file's read
// may wait for a core much longer than it computes.
constexpr double kDefaultCpuLimitSeconds = 10;
// A program that has made no progress in this much time although it did not
// use the processor is stuck (stopped, or in a read that does not return).
constexpr int kWallLimitSeconds = 300;
// The memory the program may take besides what it announces before it
// allocates for the data (kNeed): libhdf5's metadata of a sound file takes
// tens of MB, a sanitizer's quarantine up to 256 MB; an allocating loop in
// libhdf5 on a corrupt file grew without end before a limit ended it.
// ResourceLimits::reader_memory_bytes overrides it.
constexpr std::uint64_t kDefaultMemoryBaseBytes = 1ull << 30;
constexpr int kPollMilliseconds = 100;

// The descriptor, closed on every path.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

std::string directory_of_this_code() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&reader_program_candidates), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  char resolved[PATH_MAX];
  const std::string name =
      ::realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
  // A program's own name is "/proc/self/exe"'s when dladdr gives a bare name.
  if (name.find('/') == std::string::npos) {
    const ssize_t length = ::readlink("/proc/self/exe", resolved, sizeof resolved - 1);
    if (length <= 0) return {};
    resolved[length] = '\0';
    return std::string(resolved).substr(0, std::string(resolved).rfind('/'));
  }
  return name.substr(0, name.rfind('/'));
}

bool executable(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

std::string find_reader_program() {
  const std::string chosen = resource_limits().reader_program;
  if (!chosen.empty()) {
    if (executable(chosen)) return chosen;
    throw FileError(fmt::format(
        "the HDF5 reader program '{}' (TOPKFS_HDF5_READER_PROGRAM) is not an executable file",
        chosen));
  }
  const auto candidates = reader_program_candidates();
  for (const auto& candidate : candidates) {
    if (executable(candidate)) return candidate;
  }
  throw FileError(fmt::format(
      "the HDF5 reader program {} was not found (looked for {}): HDF5 and MATLAB v7.3 files are "
      "read in it, never in this process; install topkfs with it, or name it with "
      "TOPKFS_HDF5_READER_PROGRAM",
      kProgramName, fmt::join(candidates, ", ")));
}

// A field of /proc/PID/status given in kB ("VmHWM"), in bytes; negative
// when it cannot be read.
std::int64_t status_bytes(pid_t pid, const char* field) {
  std::FILE* status = std::fopen(fmt::format("/proc/{}/status", pid).c_str(), "r");
  if (status == nullptr) return -1;
  std::int64_t bytes = -1;
  char line[256];
  const std::size_t length = std::strlen(field);
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
      bytes = std::strtoll(line + length + 1, nullptr, 10) * 1024;
      break;
    }
  }
  std::fclose(status);
  return bytes;
}

double cpu_seconds(pid_t pid) {
  clockid_t clock = 0;
  timespec used{};
  if (::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &used) != 0) return -1;
  return static_cast<double>(used.tv_sec) + 1e-9 * static_cast<double>(used.tv_nsec);
}

enum class Ending { Exited, OverCpuLimit, OverWallLimit, OverMemoryLimit };

// The reader program started on one file, and watched until it ends.
class ReaderRun {
 public:
  // `spill`: the unnamed file the program may write the matrix to; -1: none.
  ReaderRun(const std::string& program, const std::vector<std::string>& args, int matrix,
            int report, int spill) {
    int pipe_ends[2];
    if (::pipe2(pipe_ends, O_CLOEXEC) != 0) {
      throw FileError(
          fmt::format("cannot start the HDF5 reader program: {}", std::strerror(errno)));
    }
    messages_ = std::make_unique<Fd>(pipe_ends[0]);
    const Fd write_end(pipe_ends[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    // dup2 clears close-on-exec on the program's copies, and only those.
    // Each is made from a copy numbered above the program's descriptors:
    // the originals may be 3 to 6 themselves, and one dup2 would then
    // replace a descriptor that a later one copies.
    const std::vector<std::pair<int, int>> given = {{matrix, protocol::kMatrixFd},
                                                    {report, protocol::kReportFd},
                                                    {write_end.get(), protocol::kMessageFd},
                                                    {spill, protocol::kSpillFd}};
    std::vector<std::unique_ptr<Fd>> copies;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (const auto& [fd, number] : given) {
      if (fd < 0) continue;
      copies.push_back(std::make_unique<Fd>(::fcntl(fd, F_DUPFD_CLOEXEC, protocol::kSpillFd + 1)));
      if (copies.back()->get() < 0) {
        posix_spawn_file_actions_destroy(&actions);
        throw FileError(
            fmt::format("cannot start the HDF5 reader program: {}", std::strerror(errno)));
      }
      posix_spawn_file_actions_adddup2(&actions, copies.back()->get(), number);
    }
    // Default signal handling and none blocked in the program, whatever
    // the reading process (Python, a sanitizer, libFuzzer) has set.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigfillset(&defaults);
    sigdelset(&defaults, SIGKILL);
    sigdelset(&defaults, SIGSTOP);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int error =
        ::posix_spawn(&pid_, program.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) {
      pid_ = -1;
      throw FileError(fmt::format("cannot start the HDF5 reader program {}: {}", program,
                                  std::strerror(error)));
    }
  }

  ~ReaderRun() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      reap();
    }
  }
  ReaderRun(const ReaderRun&) = delete;
  ReaderRun& operator=(const ReaderRun&) = delete;

  // Waits for the program to end, resetting the time limits at each of its
  // progress messages; kills it when it passes a limit. A signal handled by
  // the reading process interrupts poll() (EINTR): the wait goes on.
  Ending wait(double cpu_limit, std::uint64_t memory_base) {
    using Clock = std::chrono::steady_clock;
    memory_limit_ = memory_base;
    auto deadline = Clock::now() + std::chrono::seconds(kWallLimitSeconds);
    double cpu_start = 0;
    for (;;) {
      pollfd ready{messages_->get(), POLLIN, 0};
      const int polled = ::poll(&ready, 1, kPollMilliseconds);
      if (polled < 0 && errno != EINTR) break;
      bool progressed = false;
      if (polled > 0 && !read_messages(memory_base, &progressed)) break;  // EOF: it ended
      if (progressed) {
        // Its memory is counted from its first message, sent before it
        // opens the file: what the program and its libraries hold is not
        // the file's doing.
        if (memory_start_ < 0) memory_start_ = status_bytes(pid_, "VmRSS");
        deadline = Clock::now() + std::chrono::seconds(kWallLimitSeconds);
        cpu_start = cpu_seconds(pid_);
      }
      Ending over = Ending::Exited;
      if (Clock::now() >= deadline) over = Ending::OverWallLimit;
      const double used = cpu_seconds(pid_);
      if (used >= 0 && used - cpu_start >= cpu_limit) over = Ending::OverCpuLimit;
      const std::int64_t peak = memory_start_ < 0 ? -1 : status_bytes(pid_, "VmHWM");
      const auto grown =
          static_cast<std::uint64_t>(std::max<std::int64_t>(peak - memory_start_, 0));
      if (peak > 0 && grown > memory_limit_) {
        // A need announced after the messages above were read is there now.
        bool ignored = false;
        read_messages(memory_base, &ignored);
        if (grown > memory_limit_) over = Ending::OverMemoryLimit;
      }
      if (over != Ending::Exited) {
        ::kill(pid_, SIGKILL);
        reap();
        return over;
      }
    }
    status_ = reap();
    return Ending::Exited;
  }

  int status() const { return status_; }
  std::uint64_t memory_limit() const { return memory_limit_; }

 private:
  // Reads the messages sent so far; false at EOF (the program ended).
  bool read_messages(std::uint64_t memory_base, bool* progressed) {
    for (;;) {
      pollfd ready{messages_->get(), POLLIN, 0};
      if (::poll(&ready, 1, 0) <= 0) return true;
      char kind = 0;
      if (!receive(&kind, 1)) return false;
      if (kind == protocol::kProgress) {
        *progressed = true;
      } else {
        std::uint64_t need = 0;
        if (!receive(&need, sizeof need)) return false;
        memory_limit_ =
            std::max(memory_limit_, memory_base + std::min(need, UINT64_MAX - memory_base));
      }
    }
  }

  bool receive(void* data, std::size_t size) {
    auto* bytes = static_cast<char*>(data);
    while (size > 0) {
      const ssize_t got = ::read(messages_->get(), bytes, size);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      bytes += got;
      size -= static_cast<std::size_t>(got);
    }
    return true;
  }

  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  pid_t pid_ = -1;
  std::unique_ptr<Fd> messages_;
  int status_ = 0;
  // Its resident memory at its first message (negative: not yet), and how
  // much it may grow from there.
  std::int64_t memory_start_ = -1;
  std::uint64_t memory_limit_ = 0;
};

Fd shared_memory(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) {
    throw FileError(fmt::format("cannot make the memory the HDF5 reader program writes to: {}",
                                std::strerror(errno)));
  }
  return Fd(fd);
}

std::string read_all(int fd) {
  std::string bytes;
  char buffer[1 << 16];
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
}

[[noreturn]] void refuse(Ending ending, const ReaderRun& run, double cpu_limit,
                         const std::string& path) {
  if (ending == Ending::OverMemoryLimit) {
    throw DataError(fmt::format(
        "{}: libhdf5 took more than {} MB of memory reading the file: the file is corrupt (a "
        "loop in its structures); TOPKFS_HDF5_READER_MEMORY_MB=N allows N MB beyond what its "
        "datasets' reads need",
        path, run.memory_limit() >> 20));
  }
  if (ending != Ending::Exited) {
    const std::string limit =
        ending == Ending::OverCpuLimit
            ? fmt::format("{:g} s of processor time", cpu_limit)
            : fmt::format("{} s, without using the processor", kWallLimitSeconds);
    throw DataError(fmt::format(
        "{}: libhdf5 did not finish reading the file within {}: the file is corrupt (a loop in "
        "its links or headers)",
        path, limit));
  }
  const int status = run.status();
  const std::string how = WIFSIGNALED(status) ? std::string(::strsignal(WTERMSIG(status)))
                                              : fmt::format("exit status {}", WEXITSTATUS(status));
  throw DataError(
      fmt::format("{}: libhdf5 crashed reading the file ({}): the file is corrupt", path, how));
}

// An unnamed file in `folder` for a matrix the program may write there:
// O_TMPFILE, or, on a file system without it, a file made and unlinked at
// once. Either way nothing is left behind, whatever ends the process.
Fd unnamed_file(const std::string& folder, const std::string& path) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    std::string name = folder + "/topkfs-rows-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0) {
    throw FileError(fmt::format(
        "{}: cannot make a temporary file in '{}' for its feature rows, which are read from "
        "there when they are above half the memory budget: {} (the command uses TMPDIR, Python "
        "tempfile.gettempdir())",
        path, folder, std::strerror(errno)));
  }
  return Fd(fd);
}

// The matrix the program wrote, `shape.rows` x `shape.cols`, borrowed from
// the shared memory it lies in (no copy), or mapped from the file on disk.
FeatureMatrix map_matrix(const Fd& matrix, const protocol::MatrixShape& shape,
                         const std::string& path) {
  if (shape.rows == 0 || shape.cols == 0) return FeatureMatrix(shape.rows, shape.cols);
  auto mapping = std::make_shared<const MappedFile>(matrix.get(), path);
  if (mapping->size() !=
      static_cast<std::uint64_t>(shape.rows) * static_cast<std::uint64_t>(shape.cols) * 4) {
    throw DataError(fmt::format("{}: the HDF5 reader program wrote {} bytes for a {} x {} matrix",
                                path, mapping->size(), shape.rows, shape.cols));
  }
  const auto* values = reinterpret_cast<const float*>(mapping->data());
  return FeatureMatrix::borrow(values, shape.rows, shape.cols, std::move(mapping),
                               shape.spilled ? RowStorage::Mapped : RowStorage::InMemory);
}

}  // namespace

std::vector<std::string> reader_program_candidates() {
  std::vector<std::string> candidates;
  const std::string here = directory_of_this_code();
  if (!here.empty()) {
    for (const char* place : {"", "/../libexec/topkfs", "/../lib/topkfs"}) {
      candidates.push_back(here + place + "/" + kProgramName);
    }
  }
  candidates.push_back(TOPKFS_INSTALLED_READER_PROGRAM);
  candidates.push_back(TOPKFS_BUILT_READER_PROGRAM);
  return candidates;
}

Dataset read_in_reader_process(Format format, const std::string& path, const ReadOptions& options,
                               const MatrixOnDisk* on_disk) {
  const std::string program = find_reader_program();
  const ResourceLimits limits = resource_limits();
  protocol::Request request;
  request.format = format;
  request.memory_bytes = limits.memory_bytes;
  request.memory_name = limits.memory_name;
  request.options = options;
  request.path = path;
  const Fd matrix = shared_memory("topkfs-hdf5-matrix");
  const Fd report = shared_memory("topkfs-hdf5-report");
  const Fd spill = on_disk != nullptr ? unnamed_file(on_disk->folder, path) : Fd();
  if (on_disk != nullptr) {
    request.spill = true;
    request.spill_above_bytes = on_disk->above_bytes;
  }
  const double cpu_limit =
      limits.reader_cpu_seconds > 0 ? limits.reader_cpu_seconds : kDefaultCpuLimitSeconds;
  const std::uint64_t memory_base =
      limits.reader_memory_bytes > 0 ? limits.reader_memory_bytes : kDefaultMemoryBaseBytes;
  ReaderRun run(program, protocol::arguments(request), matrix.get(), report.get(), spill.get());
  const Ending ending = run.wait(cpu_limit, memory_base);
  const int status = run.status();
  if (ending == Ending::Exited && WIFEXITED(status)) {
    if (WEXITSTATUS(status) == protocol::kExitRefused) {
      protocol::rethrow_error(read_all(report.get()), path);
    }
    if (WEXITSTATUS(status) == protocol::kExitRead) {
      protocol::MatrixShape shape;
      Dataset data = protocol::dataset_from_description(read_all(report.get()), &shape, path);
      if (shape.spilled && on_disk == nullptr) {
        throw DataError(fmt::format("{}: the HDF5 reader program's answer is unreadable", path));
      }
      data.features = map_matrix(shape.spilled ? spill : matrix, shape, path);
      if (shape.spilled) {
        const double megabytes = static_cast<double>(shape.rows) * shape.cols * 4 / 1e6;
        const std::string why =
            on_disk->above_bytes == 0
                ? std::string("this rank of a data-parallel run reads its shard of it")
                : fmt::format("it is above half the memory budget ({:.1f} MB)",
                              static_cast<double>(on_disk->above_bytes) / 1e6);
        data.notes.push_back(fmt::format(
            "the feature matrix ({} x {} float32, {:.1f} MB) was written to an unnamed temporary "
            "file in {} and its rows are read from there on demand (mapped): {}",
            shape.rows, shape.cols, megabytes, on_disk->folder, why));
      }
      return data;
    }
  }
  refuse(ending, run, cpu_limit, path);
}

}  // namespace topkfs::detail
