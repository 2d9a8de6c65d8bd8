#include "distributed_flags.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "topkfs/core/clock.hpp"
#include "topkfs/core/cpu_share.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::cli {
namespace {

// Set by the launcher for its ranks: it hosts the store, not rank 0.
constexpr const char* kLauncherStore = "TOPKFS_LAUNCHER_STORE";

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

int env_int(const char* name, const std::string& value) {
  try {
    std::size_t used = 0;
    const int number = std::stoi(value, &used);
    if (used == value.size()) return number;
  } catch (const std::exception&) {
  }
  throw OptionError(fmt::format("{} must be a whole number, not '{}'", name, value));
}

// This process's command line, as the kernel keeps it.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> arguments;
  std::string argument;
  while (std::getline(in, argument, '\0')) arguments.push_back(argument);
  return arguments;
}

// The command line of rank `rank`: this one without --nproc, with the rank's
// place and the store.
std::vector<std::string> rank_arguments(const std::vector<std::string>& own, int rank, int size,
                                        int port) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < own.size(); ++i) {
    if (own[i] == "--nproc") {
      ++i;
      continue;
    }
    if (own[i].rfind("--nproc=", 0) == 0) continue;
    out.push_back(own[i]);
  }
  for (const std::string& extra :
       {std::string("--rank"), std::to_string(rank), std::string("--world-size"),
        std::to_string(size), std::string("--master"), fmt::format("127.0.0.1:{}", port)}) {
    out.push_back(extra);
  }
  return out;
}

// `error_file`: where a rank other than 0 writes its stderr (-1: inherited).
pid_t start_rank(const std::vector<std::string>& arguments, int rank, int size, int error_file) {
  const pid_t pid = fork();
  if (pid < 0)
    throw DistributedError(fmt::format("cannot start rank {}: {}", rank, strerror(errno)));
  if (pid > 0) return pid;
  if (rank != 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    if (error_file >= 0) dup2(error_file, STDERR_FILENO);
  }
  setenv(kLauncherStore, "1", 1);
  // PyTorch's variable for the ranks on this machine, as torchrun sets it:
  // they share its cores (select_command.cpp, share_local_cores).
  setenv("LOCAL_WORLD_SIZE", std::to_string(size).c_str(), 1);
  // libtorch's logging (c10d's warnings, glog) is not the user's: errors
  // reach the user as topkfs's own messages.
  setenv("TORCH_CPP_LOG_LEVEL", "ERROR", 0);
  setenv("GLOG_minloglevel", "2", 0);
  std::vector<char*> argv;
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  std::fprintf(stderr, "topkfs: error: cannot start rank %d: %s\n", rank, strerror(errno));
  _exit(1);
}

// A file without a name, removed when closed: a rank's stderr.
int anonymous_file() {
  char name[] = "/tmp/topkfs-rank-XXXXXX";
  const int fd = ::mkstemp(name);
  if (fd >= 0) ::unlink(name);
  return fd;
}

void copy_to_stderr(int fd) {
  if (fd < 0 || ::lseek(fd, 0, SEEK_SET) != 0) return;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) {
    if (::write(STDERR_FILENO, buffer, static_cast<std::size_t>(got)) < 0) return;
  }
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

// The most ranks of one run (over machines): Gloo's all-reduce among more
// would spend its time on the rings' latency, and a typo of a few zeros
// should not start a hundred thousand processes.
constexpr int kMaxWorldSize = 1024;

// Ranks on this machine: each holds libtorch (about 170 MB before any data)
// and a core's worth of work, so a count beyond 4 per core or 256 MB each is
// refused before any process starts.
void check_local_ranks(int count) {
  const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const double memory = pages > 0 && page_size > 0 ? static_cast<double>(pages) * page_size : 0.0;
  const long by_memory = memory > 0 ? static_cast<long>(memory / (256.0 * 1024 * 1024)) : 4 * cores;
  const long most = std::max(1L, std::min({4 * cores, by_memory, long{kMaxWorldSize}}));
  if (count <= most) return;
  throw OptionError(fmt::format(
      "--nproc {}: this machine runs at most {} ranks (4 per core of its {}, 256 MB of memory "
      "each); a run over more ranks spans machines (--rank, --world-size, --master)",
      count, most, cores));
}

}  // namespace

void add_distributed_flags(CLI::App& command, DistributedFlags& flags) {
  auto* group = command.add_option_group(
      "Data-parallel",
      "Training over several processes (neural and linear methods; docs/scale.md)");
  group->add_option("--nproc", flags.nproc,
                    "Start this many ranks on this machine and train data-parallel over them "
                    "(give each --threads)");
  group->add_option("--rank", flags.rank, "This process's rank (default: $RANK)");
  group->add_option("--world-size", flags.world_size,
                    "How many ranks train together (default: $WORLD_SIZE)");
  group->add_option("--master", flags.master,
                    "ADDR:PORT of the rendezvous store, which rank 0 opens (default: "
                    "$MASTER_ADDR:$MASTER_PORT)");
  group
      ->add_option("--timeout", flags.timeout,
                   "Seconds a rank waits for the store, for the others and for each sum before "
                   "it stops with an error")
      ->capture_default_str();
}

DistributedRole distributed_role(const DistributedFlags& flags) {
  DistributedRole role;
  if (flags.timeout < 1) {
    throw OptionError(fmt::format("--timeout must be at least 1 second, got {}", flags.timeout));
  }
  if (flags.rank && *flags.rank < 0) {
    throw OptionError(fmt::format("--rank must be at least 0, got {}", *flags.rank));
  }
  if (flags.world_size && *flags.world_size < 1) {
    throw OptionError(fmt::format("--world-size must be at least 1, got {}", *flags.world_size));
  }
  const bool rank_flags = flags.rank || flags.world_size || !flags.master.empty();
  if (flags.nproc != 0) {
    if (flags.nproc < 1)
      throw OptionError(fmt::format("--nproc must be at least 1, got {}", flags.nproc));
    check_local_ranks(flags.nproc);
    if (rank_flags) {
      throw OptionError(
          "--nproc starts the ranks itself: leave out --rank, --world-size and --master");
    }
    role.kind = DistributedRole::Launcher;
    return role;
  }
  const auto world_env = env("WORLD_SIZE");
  if (!rank_flags && !world_env) return role;
  RendezvousSettings& r = role.rendezvous;
  r.timeout = std::chrono::seconds(flags.timeout);
  r.store_elsewhere = env(kLauncherStore).has_value();
  r.world_size = flags.world_size ? *flags.world_size
                 : world_env      ? env_int("WORLD_SIZE", *world_env)
                                  : 0;
  if (r.world_size < 1)
    throw OptionError("a rank needs the world size: --world-size or WORLD_SIZE");
  if (r.world_size > kMaxWorldSize) {
    throw OptionError(fmt::format("the world size {} is above {}, the most ranks a run takes",
                                  r.world_size, kMaxWorldSize));
  }
  const auto rank_env = env("RANK");
  if (!flags.rank && !rank_env) throw OptionError("a rank needs its rank: --rank or RANK");
  r.rank = flags.rank ? *flags.rank : env_int("RANK", *rank_env);
  if (r.rank < 0) throw OptionError(fmt::format("RANK must be at least 0, got {}", r.rank));
  std::string master = flags.master;
  if (master.empty()) {
    const auto addr = env("MASTER_ADDR");
    const auto port = env("MASTER_PORT");
    if (!addr || !port) {
      throw OptionError(
          "a rank needs the rendezvous store's address: --master ADDR:PORT, or MASTER_ADDR and "
          "MASTER_PORT");
    }
    master = *addr + ":" + *port;
  }
  const auto colon = master.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw OptionError(fmt::format("--master takes ADDR:PORT, not '{}'", master));
  }
  r.host = master.substr(0, colon);
  if (r.host.size() > 2 && r.host.front() == '[' && r.host.back() == ']') {
    r.host = r.host.substr(1, r.host.size() - 2);
  }
  r.port = env_int("the port of --master", master.substr(colon + 1));
  if (r.rank >= r.world_size) {
    throw OptionError(fmt::format("rank {} is not in 0..{} (world size {})", r.rank,
                                  r.world_size - 1, r.world_size));
  }
  // Every rank on this machine (the launcher's ranks, or torchrun's on one
  // node): their sums go through shared memory.
  const auto local_env = env("LOCAL_WORLD_SIZE");
  r.same_machine = local_env && env_int("LOCAL_WORLD_SIZE", *local_env) == r.world_size;
  role.kind = DistributedRole::Rank;
  return role;
}

std::string core_shortage(int ranks, const CoreLoad& load) {
  const int free = load.free();
  if (free >= ranks) return "";
  const std::string held =
      load.others > 0 ? fmt::format(", {} held by other running tasks", load.others) : "";
  return fmt::format(
      "{} ranks on {} free core{} ({} usable{}): the ranks take turns on the cores and each "
      "waits for the others' turn at every sum, so this run may be slower than one process",
      ranks, free, free == 1 ? "" : "s", load.usable, held);
}

int launch_local_ranks(const DistributedFlags& flags) {
  // Measured once, before the ranks start: the ranks gain only with a core
  // each. Their sums go through shared memory on the calling thread and need
  // no core of their own (over Gloo's loopback they did: 2 ranks on a quiet
  // 2-core machine then took 1.4 to 2.1 times one process's epoch;
  // bench/scale/results/2026-12-07-shared-memory-sums.md).
  if (const std::string shortage = core_shortage(flags.nproc, measure_core_load());
      !shortage.empty()) {
    fmt::print(stderr, "topkfs: warning: {}\n", shortage);
  }
  const std::chrono::seconds timeout(flags.timeout);
  StoreHost store(flags.nproc, timeout);
  const auto own = own_arguments();
  std::vector<pid_t> pids;
  std::vector<int> error_files(static_cast<std::size_t>(flags.nproc), -1);
  const auto close_error_files = [&] {
    for (int& fd : error_files) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  };
  for (int rank = 0; rank < flags.nproc; ++rank) {
    if (rank > 0) error_files[static_cast<std::size_t>(rank)] = anonymous_file();
    pids.push_back(start_rank(rank_arguments(own, rank, flags.nproc, store.port()), rank,
                              flags.nproc, error_files[static_cast<std::size_t>(rank)]));
  }
  std::optional<std::string> failure;
  int failed_rank = -1;
  int failed_status = 0;
  int rank0_status = 0;
  bool waiting = false;  // for the others to stop after a failure
  Clock::time_point deadline;
  int running = flags.nproc;
  while (running > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (int rank = 0; rank < flags.nproc; ++rank) {
        if (pids[static_cast<std::size_t>(rank)] != pid) continue;
        pids[static_cast<std::size_t>(rank)] = 0;
        --running;
        if (rank == 0) rank0_status = status;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && !failure) {
          failure = fmt::format("rank {} (process {}) {}", rank, pid, how_it_ended(status));
          failed_rank = rank;
          failed_status = status;
          // The others notice a dead rank at once; one that hangs is killed.
          waiting = true;
          deadline = Clock::now() + timeout + std::chrono::seconds(5);
        }
      }
      continue;
    }
    if (waiting && Clock::now() > deadline) {
      for (const pid_t left : pids) {
        if (left > 0) kill(left, SIGKILL);
      }
      waiting = false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!failure) {
    close_error_files();
    return 0;
  }
  // Rank 0 printed its own message. A rank that failed before it shows its,
  // unless rank 0 then failed with the same status: it met the same error
  // (a usage error every rank meets) or names the other's, which a rank
  // announces through the store; which rank's exit is seen first is a race.
  const bool rank0_said_it = WIFEXITED(failed_status) && WIFEXITED(rank0_status) &&
                             WEXITSTATUS(rank0_status) == WEXITSTATUS(failed_status);
  if (failed_rank > 0 && !rank0_said_it) {
    copy_to_stderr(error_files[static_cast<std::size_t>(failed_rank)]);
  }
  close_error_files();
  if (WIFEXITED(failed_status) && WEXITSTATUS(failed_status) == kExitUsage) return kExitUsage;
  throw DistributedError(*failure + "; the run stopped, nothing was written");
}

}  // namespace topkfs::cli
