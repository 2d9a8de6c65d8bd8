#include "hdf5_probe.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hdf5_chunked_reads.hpp"
#include "hdf5_util.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/resource_limits.hpp"

namespace topkfs::hdf5 {
namespace {

// A dataset up to this size (as doubles) is read whole by the child; a larger
// one by its first and last rows, so that probing a file costs little more
// than reading its metadata. (A small file may claim a large dataset that
// its fill value makes up.)
constexpr std::uint64_t whole_read_bytes = 1ull << 20;
constexpr hsize_t edge_rows = 64;
constexpr std::uint64_t edge_read_bytes = 16ull << 20;
// Attributes whose values the walk reads (matio reads MATLAB_class and a
// few flags; larger ones are opened and described only).
constexpr std::uint64_t attribute_read_bytes = 64ull << 10;
// A child that has spent this much processor time without progress (a
// piece of a dataset read, or the walk's end) is in one of libhdf5's loops:
// ample for the metadata of any sound file and one piece of at most
// kChunksPerRead chunks. Processor time, not time waited, and from the last
// progress, not from the start: on a loaded machine a sound file of 262,144
// chunks (about 3.5 s of the child's work alone) took the child over 10 s of
// waiting and was refused as corrupt, and a larger sound file takes longer
// than any fixed limit. ResourceLimits::hdf5_probe_cpu_seconds overrides it
// (TOPKFS_HDF5_PROBE_CPU_SECONDS for the command; tests).
constexpr double default_cpu_limit_seconds = 10;
// A child that has made no progress in this much time although it did not
// use the processor is stuck (stopped, or in a read that does not return).
constexpr int wall_limit_seconds = 300;
// The memory a child may take beyond what it had when it was given the
// file, besides what it announces before reading a dataset's values
// (announce_need). Its walk of a sound file's structure took 16 to 48 MB
// in h5py files of 3,000 to 60,000 small datasets (libhdf5's metadata cache
// is bounded), and a sanitizer's quarantine of freed memory adds up to 256
// MB. Without a bound, an
// allocating loop inside libhdf5 grew a probe to 9.2 GB within its
// processor time (a local heap's free list that came back to itself, which
// the walk of the group structures now refuses before). Resident memory,
// at its peak: the kernel's high-water mark, reset at each file.
// ResourceLimits::hdf5_probe_memory_bytes overrides it
// (TOPKFS_HDF5_PROBE_MEMORY_MB for the command; tests, fuzzing).
constexpr std::uint64_t default_memory_base_bytes = 1ull << 30;
// How often the wait looks at the child's processor time and memory.
constexpr int poll_slice_milliseconds = 100;
// The probe process's messages: a piece read; the file was walked; the file
// was walked and the process ends now; the memory the reads of a dataset
// may take (8 bytes follow).
constexpr char kProgress = 0;
constexpr char kWalked = 1;
constexpr char kWalkedAndEnding = 2;
constexpr char kNeed = 3;

// The limits set for the library (resource_limits.hpp), or the defaults.
double cpu_limit_seconds() {
  const double chosen = resource_limits().hdf5_probe_cpu_seconds;
  return chosen > 0 ? chosen : default_cpu_limit_seconds;
}

std::uint64_t memory_base_bytes() {
  const std::uint64_t chosen = resource_limits().hdf5_probe_memory_bytes;
  return chosen > 0 ? chosen : default_memory_base_bytes;
}

// A field of /proc/PID/status given in kB ("VmRSS", "VmHWM"), in bytes;
// negative when it cannot be read.
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

// Resets the high-water mark of child `pid`'s resident memory to what it
// holds now, and returns that; negative when either cannot be done (the
// wait then does not look at the child's memory).
std::int64_t reset_peak_memory(pid_t pid) {
  std::FILE* clear = std::fopen(fmt::format("/proc/{}/clear_refs", pid).c_str(), "w");
  if (clear == nullptr) return -1;
  const bool reset = std::fputs("5", clear) >= 0;  // 5: reset the peak resident size
  if (std::fclose(clear) != 0 || !reset) return -1;
  return status_bytes(pid, "VmRSS");
}

// The processor time process `pid` (a child) has used, in seconds; negative
// when it cannot be read.
double cpu_seconds(pid_t pid) {
  clockid_t clock = 0;
  timespec used{};
  if (::clock_getcpuclockid(pid, &clock) != 0 || ::clock_gettime(clock, &used) != 0) return -1;
  return static_cast<double>(used.tv_sec) + 1e-9 * static_cast<double>(used.tv_nsec);
}

enum class Wait { Replied, Died, OverCpuLimit, OverWallLimit, OverMemoryLimit };

// The processor time limit as the probe process sees it: set by the
// reading process just before each fork, so that the child takes no lock
// (a lock another thread held at the fork stays held in the child).
double probe_cpu_limit_seconds = default_cpu_limit_seconds;

// In the probe process: tells the reading process that the walk goes on
// (socket 3), and gives the walk its time limits again.
void report_progress() {
  const double cpu_limit = probe_cpu_limit_seconds;
  // SIGPROF after twice the processor time the reader allows, SIGALRM after
  // twice its wall limit (both end the process): the walk ends even when
  // the reading process is gone and cannot kill it.
  itimerval processor{};
  processor.it_value.tv_sec = static_cast<time_t>(2 * cpu_limit) + 1;
  ::setitimer(ITIMER_PROF, &processor, nullptr);
  ::alarm(2 * wall_limit_seconds);
  ::send(3, &kProgress, 1, MSG_NOSIGNAL);
}

// In the probe process: tells the reading process how much memory the reads
// of the next dataset may take, beyond the base.
void announce_need(std::uint64_t bytes) {
  char message[1 + sizeof bytes];
  message[0] = kNeed;
  std::memcpy(message + 1, &bytes, sizeof bytes);
  ::send(3, message, sizeof message, MSG_NOSIGNAL);
}

// What reading `values` doubles of `dataset` may take: the values, and for
// a chunked dataset four of its chunks (libhdf5's buffer of the chunk and
// its filters' output, which grows by doubling, and check_decoded_rows'
// copy of a chunk it decodes). check_storage_layout has bounded a chunk by
// the file's size.
std::uint64_t read_need(hid_t dataset, hid_t type, std::uint64_t values) {
  const std::uint64_t need = saturating_product(values, sizeof(double));
  const Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  if (!plist || H5Pget_layout(plist.get()) != H5D_CHUNKED) return need;
  const auto chunk = chunk_shape(plist.get(), static_cast<int>(dataset_dims(dataset).size()));
  if (!chunk) return need;
  std::uint64_t chunk_bytes = H5Tget_size(type);
  for (const hsize_t side : *chunk) chunk_bytes = saturating_product(chunk_bytes, side);
  return need + std::min(saturating_product(4, chunk_bytes), UINT64_MAX - need);
}

// Reads rows [first, first + count) as the reader would, after refusing
// (throwing) what libhdf5 would overrun in them: their chunks are decoded
// first, only those, so that probing a large file does not decode it all.
void read_rows(hid_t dataset, hid_t type, const std::string& path, const std::string& name,
               const std::vector<hsize_t>& dims, hsize_t first, hsize_t count) {
  std::uint64_t values = count;
  for (std::size_t d = 1; d < dims.size(); ++d) values *= dims[d];
  announce_need(read_need(dataset, type, values));
  check_decoded_rows(dataset, path, name, first, count, report_progress);
  std::vector<double> buffer(values);
  read_rows_in_pieces(dataset, H5T_NATIVE_DOUBLE, first, count, buffer.data(), report_progress);
}

// What the reader does to a dataset it describes, checks or reads.
void touch_dataset(hid_t dataset, const std::string& path, const std::string& name) {
  const Handle type = type_handle(H5Dget_type(dataset));
  if (!type) return;
  H5Tget_size(type.get());
  const auto type_class = H5Tget_class(type.get());
  if (type_class == H5T_INTEGER) H5Tget_sign(type.get());
  const auto dims64 = dataset_dims(dataset);
  try {
    check_storage_layout(dataset, path, name);
    if ((type_class != H5T_INTEGER && type_class != H5T_FLOAT) || dims64.empty() ||
        dims64.size() > 2) {
      return;  // the reader refuses these before reading them
    }
    const std::vector<hsize_t> dims(dims64.begin(), dims64.end());
    std::uint64_t row_values = dims.size() == 2 ? dims[1] : 1;
    if (dims[0] == 0 || row_values == 0) return;
    if (dims[0] * row_values * sizeof(double) <= whole_read_bytes) {
      read_rows(dataset, type.get(), path, name, dims, 0, dims[0]);
      return;
    }
    const hsize_t count = std::min<hsize_t>(edge_rows, dims[0]);
    if (row_values * count * sizeof(double) > edge_read_bytes) return;  // left to the reader
    read_rows(dataset, type.get(), path, name, dims, 0, count);
    read_rows(dataset, type.get(), path, name, dims, dims[0] - count, count);
  } catch (const Error&) {
    return;  // the reader refuses the dataset when it reads it
  }
}

// matio opens each object's attributes by name (MATLAB_class and others)
// while it lists a v7.3 file's variables, and opening one decodes its
// message, which may be shared (kept once in the file's shared-message
// heap): a fuzzed shared message whose heap was at address 0 crashed
// libhdf5 there, in the reading process. So the walk opens every attribute
// by name as matio does and reads the small fixed-size ones.
herr_t touch_attribute(hid_t object, const char* name, const H5A_info_t*, void*) {
  const Handle attribute = attribute_handle(H5Aopen(object, name, H5P_DEFAULT));
  if (!attribute) return 0;
  const Handle type = type_handle(H5Aget_type(attribute.get()));
  const Handle space = space_handle(H5Aget_space(attribute.get()));
  if (!type || !space) return 0;
  const H5T_class_t type_class = H5Tget_class(type.get());
  const hssize_t values = H5Sget_simple_extent_npoints(space.get());
  const std::size_t value_bytes = H5Tget_size(type.get());
  const bool fixed_size =
      type_class != H5T_VLEN && type_class != H5T_REFERENCE && H5Tis_variable_str(type.get()) == 0;
  if (!fixed_size || values <= 0 || value_bytes == 0 ||
      static_cast<std::uint64_t>(values) > attribute_read_bytes / value_bytes) {
    return 0;
  }
  std::vector<unsigned char> buffer(static_cast<std::size_t>(values) * value_bytes);
  H5Aread(attribute.get(), type.get(), buffer.data());
  return 0;
}

void touch_attributes(hid_t object) {
  H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, touch_attribute, nullptr);
}

struct Walk {
  const std::string* path;
};

// Counting a group's links walks its B-tree another way than H5Lvisit: on
// a fuzzed root group whose B-tree node was its own child, H5Lvisit failed
// cleanly and H5Gget_info (which matio's Mat_Open calls) recursed until the
// stack ran out.
void touch_group(hid_t group) {
  H5G_info_t info{};
  H5Gget_info(group, &info);
}

herr_t touch_link(hid_t root, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  // Opening such a dataset decodes its external file list, which libhdf5
  // reads past its buffer when a name has no NUL; the reader refuses them
  // without opening them (check_no_external_storage), so the walk does not
  // open them either.
  if (has_external_storage(root, name)) return 0;
  const Handle object = object_handle(H5Oopen(root, name, H5P_DEFAULT));
  if (!object) return 0;
  touch_attributes(object.get());
  const H5I_type_t type = H5Iget_type(object.get());
  if (type == H5I_GROUP) touch_group(object.get());
  if (type == H5I_DATASET) touch_dataset(object.get(), *static_cast<Walk*>(data)->path, name);
  return 0;
}

void walk_file(const std::string& path) {
  const QuietErrors quiet;
  const Handle file = file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file) return;
  touch_group(file.get());
  touch_attributes(file.get());
  Walk walk{&path};
  H5Lvisit(file.get(), H5_INDEX_NAME, H5_ITER_INC, touch_link, &walk);
}

// The child that walks files, forked once and kept: forking a process per
// file would cost more than reading a small file (a large process, or one
// under a sanitizer, takes milliseconds to fork). It serves one request at a
// time over a socket: the path's length and bytes in, one byte out when the
// walk is done. EOF on the socket means it died; the next request forks a
// new one. It ends when the reading process does (EOF on its side).
class ProbeProcess {
 public:
  ~ProbeProcess() { stop(); }

  void probe(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!alive() && !start()) return;  // no process to spare: read without the guard
    const auto length = static_cast<std::uint32_t>(path.size());
    memory_start_ = reset_peak_memory(pid_);
    if (!send_all(&length, sizeof length) || !send_all(path.data(), path.size())) {
      // It died between requests (killed from outside): not this file's doing.
      stop();
      if (!start()) return;
      memory_start_ = reset_peak_memory(pid_);
      if (!send_all(&length, sizeof length) || !send_all(path.data(), path.size())) return;
    }
    const double cpu_limit = cpu_limit_seconds();
    memory_limit_ = memory_base_bytes();
    char reply = 0;
    const Wait waited = wait_for_reply(cpu_limit, &reply);
    if (waited == Wait::Replied) {  // walked through
      if (reply == kWalkedAndEnding) stop();
      return;
    }
    const bool timed_out = waited != Wait::Died;
    ::kill(pid_, SIGKILL);  // nothing to a child that has ended
    const int status = reap();
    ::close(socket_);
    socket_ = -1;
    if (waited == Wait::OverMemoryLimit) {
      throw DataError(fmt::format(
          "{}: libhdf5 took more than {} MB of memory reading the file's structure and the "
          "values it checks: the file is corrupt (a loop in its structures); "
          "TOPKFS_HDF5_PROBE_MEMORY_MB=N allows N MB beyond what its datasets' reads need",
          path, memory_limit_ >> 20));
    }
    if (timed_out) {
      const std::string limit =
          waited == Wait::OverCpuLimit
              ? fmt::format("{:g} s of processor time", cpu_limit)
              : fmt::format("{} s, without using the processor", wall_limit_seconds);
      // Both limits count from the probe's last progress (a piece of a
      // dataset read), not from the start of the walk.
      throw DataError(fmt::format(
          "{}: libhdf5 did not finish reading the file's structure within {}: the file is "
          "corrupt (a loop in its links or headers)",
          path, limit));
    }
    const std::string how = WIFSIGNALED(status)
                                ? std::string(::strsignal(WTERMSIG(status)))
                                : fmt::format("exit status {}", WEXITSTATUS(status));
    throw DataError(fmt::format(
        "{}: libhdf5 crashed reading the file's structure ({}): the file is corrupt", path, how));
  }

 private:
  // Whether the child is there and waiting: a child that died closed its end
  // of the socket, which then reads as EOF (readable or hung up).
  bool alive() {
    if (pid_ <= 0) return false;
    pollfd state{socket_, POLLIN, 0};
    if (::poll(&state, 1, 0) == 0) return true;
    stop();
    return false;
  }

  // Waits for the child's answer to the file, `reply`, and resets the time
  // limits at each of its progress reports: Died when it ended first (EOF),
  // else when it has used `cpu_limit` seconds of processor time, or the wall
  // limit has passed, since its last report, or when its peak memory since
  // it was given the file exceeds memory_limit_. A signal handled by the
  // reading process interrupts poll() (EINTR, without SA_RESTART); the
  // wait then goes on rather than taking the child for dead.
  Wait wait_for_reply(double cpu_limit, char* reply) {
    using Clock = std::chrono::steady_clock;
    Clock::time_point deadline = Clock::now() + std::chrono::seconds(wall_limit_seconds);
    double cpu_start = cpu_seconds(pid_);
    for (;;) {
      pollfd ready{socket_, POLLIN, 0};
      const int polled = ::poll(&ready, 1, poll_slice_milliseconds);
      if (polled < 0 && errno != EINTR) return Wait::Died;
      bool progressed = false;
      if (polled > 0) {
        if (const auto ended = read_messages(reply, &progressed)) return *ended;
      }
      if (progressed) {
        deadline = Clock::now() + std::chrono::seconds(wall_limit_seconds);
        cpu_start = cpu_seconds(pid_);
      }
      if (Clock::now() >= deadline) return Wait::OverWallLimit;
      if (cpu_start >= 0 && cpu_seconds(pid_) - cpu_start >= cpu_limit) return Wait::OverCpuLimit;
      if (over_memory_limit()) {
        // The child announces a need before it allocates for it: one that
        // came after the messages above were read is there now.
        if (const auto ended = read_messages(reply, &progressed)) return *ended;
        if (over_memory_limit()) return Wait::OverMemoryLimit;
      }
    }
  }

  // Reads every message the child has sent so far: its answer (Replied,
  // into `reply`, or OverMemoryLimit when its peak went past the limit
  // before it answered: the outcome does not depend on when the wait last
  // looked) or its end (Died) end the wait; progress reports set
  // `progressed`; a need raises memory_limit_ to the base and the largest
  // need of this file.
  std::optional<Wait> read_messages(char* reply, bool* progressed) {
    for (;;) {
      pollfd ready{socket_, POLLIN, 0};
      if (::poll(&ready, 1, 0) <= 0) return std::nullopt;
      if (!receive_all(socket_, reply, 1)) return Wait::Died;
      if (*reply == kProgress) {
        *progressed = true;
      } else if (*reply == kNeed) {
        std::uint64_t need = 0;
        if (!receive_all(socket_, &need, sizeof need)) return Wait::Died;
        const std::uint64_t base = memory_base_bytes();
        memory_limit_ = std::max(memory_limit_, base + std::min(need, UINT64_MAX - base));
      } else {
        return over_memory_limit() ? Wait::OverMemoryLimit : Wait::Replied;
      }
    }
  }

  // Whether the child's peak resident memory since it was given the file
  // has grown by more than memory_limit_ (false when it cannot be read).
  bool over_memory_limit() const {
    if (memory_start_ < 0) return false;
    const std::int64_t peak = status_bytes(pid_, "VmHWM");
    return peak > memory_start_ && static_cast<std::uint64_t>(peak - memory_start_) > memory_limit_;
  }

  // Waits for the child to end and forgets it; its wait status. Resumed
  // when a signal interrupts it, so that no ended child is left a zombie.
  int reap() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

  bool start() {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return false;
    probe_cpu_limit_seconds = cpu_limit_seconds();
    const pid_t child = ::fork();
    if (child < 0) {
      ::close(ends[0]);
      ::close(ends[1]);
      return false;
    }
    if (child == 0) serve(ends[1]);
    ::close(ends[1]);
    pid_ = child;
    socket_ = ends[0];
    return true;
  }

  [[noreturn]] static void serve(int socket) {
    // Only the socket and the standard streams stay open: an inherited pipe
    // or output file held here would outlive the reading process's use of it.
    ::dup2(socket, 3);
    ::close_range(4, ~0u, 0);
    // A crash here is an answer, not a report: it dies quietly (no sanitizer
    // or crash handler inherited from the reading process speaks for it).
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(signal, SIG_DFL);
    // Its own time limits (below) end it, whatever the reading process
    // handles these with (libFuzzer's timer uses SIGALRM).
    for (int signal : {SIGALRM, SIGPROF}) ::signal(signal, SIG_DFL);
    for (;;) {
      std::uint32_t length = 0;
      if (!receive_all(3, &length, sizeof length)) ::_exit(0);
      std::string path(length, '\0');
      if (!receive_all(3, path.data(), length)) ::_exit(0);
      // Objects the reading process had open (an h5py file in the same
      // Python process shares libhdf5) are not the walk's.
      const ssize_t open_before = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
      report_progress();  // arms the walk's time limits
      try {
        walk_file(path);
      } catch (...) {
      }
      ::alarm(0);
      const itimerval off{};
      ::setitimer(ITIMER_PROF, &off, nullptr);
      // Defensive: libhdf5 reuses a file that is still open when the same
      // file is opened again, so a walk that left anything of a file open
      // (libhdf5 on a corrupt file) could hand its stale state to the next
      // walk. This process then says so with its answer and ends, and the
      // next file gets a fresh one.
      const bool left_open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) > open_before;
      const char done = left_open ? kWalkedAndEnding : kWalked;
      if (::send(3, &done, 1, MSG_NOSIGNAL) != 1 || left_open) ::_exit(0);
    }
  }

  static bool receive_all(int socket, void* data, std::size_t size) {
    auto* bytes = static_cast<char*>(data);
    while (size > 0) {
      const ssize_t got = ::recv(socket, bytes, size, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      bytes += got;
      size -= static_cast<std::size_t>(got);
    }
    return true;
  }

  bool send_all(const void* data, std::size_t size) const {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t sent = ::send(socket_, bytes, size, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return false;
      bytes += sent;
      size -= static_cast<std::size_t>(sent);
    }
    return true;
  }

  void stop() {
    if (socket_ >= 0) ::close(socket_);  // the child sees EOF and ends
    socket_ = -1;
    if (pid_ > 0) reap();
  }

  std::mutex mutex_;
  pid_t pid_ = -1;
  int socket_ = -1;
  // The child's resident memory when it was given the current file
  // (negative: not known), and how much it may grow.
  std::int64_t memory_start_ = -1;
  std::uint64_t memory_limit_ = 0;
};

}  // namespace

void probe_in_child(const std::string& path) {
  static ProbeProcess process;
  process.probe(path);
}

}  // namespace topkfs::hdf5
