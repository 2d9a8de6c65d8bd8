// dnn-top's default thread count against one thread, on an idle machine and
// beside one CPU-bound process: the default (a team of one member per core,
// which takes every step together) must never be slower than one thread,
// and must stay at least 1.6x faster when the cores are free.
//
// Each measurement is a fit of dnn-top through the registry, as `topkfs
// select` runs it, on MNIST's training rows (--rows of them, default 20000),
// MLP 256-128, batch 128, k 50, --epochs epochs (default 2) without
// validation; its figure is the mean epoch time from the result's history
// (the fit's set-up left out). The two variants alternate, 1 thread then the
// default, for --rounds rounds (default 5), so that drift of a shared machine
// hits both; the ratio is the median of the per-round ratios.
//
// "Busy": a child process of this program spins on one core for the whole
// phase (started before, killed after), as another user's job would.
//
// Usage: team_load_bench [DATA_DIR] [--rows N] [--epochs E] [--rounds R]
//                        [--idle-only] [--busy-only]
//   DATA_DIR: the shared data folder holding mnist/ (default
//   $TOPKFS_DATA_DIR, else ../shared/data beside the source).
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/methods/registry.hpp"

extern char** environ;

namespace {

struct Config {
  std::string data_dir;
  long rows = 20000;
  int epochs = 2;
  int rounds = 5;
  bool idle = true;
  bool busy = true;
};

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return in ? fmt::format("load average {} {} {}", one, five, fifteen)
            : std::string("load unknown");
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Mean epoch seconds of one dnn-top fit with `threads` (0: the default).
double epoch_seconds(const topkfs::Dataset& data, const std::vector<std::int64_t>& rows,
                     const Config& config, int threads) {
  auto selector = topkfs::make_selector("dnn-top");
  const std::vector<std::pair<std::string, std::string>> options = {
      {"hidden", "256,128"},
      {"batch", "128"},
      {"epochs", std::to_string(config.epochs)},
      {"min-steps", "0"},
      {"validation", "0"},
      {"patience", "0"},
      {"seed", "7"},
      {"threads", std::to_string(threads)}};
  for (const auto& [name, value] : options) selector->set_option(name, value);
  const topkfs::SelectionResult result = selector->fit(data, rows, 50, {});
  double total = 0.0;
  for (const auto& epoch : result.history) total += epoch.seconds;
  return total / static_cast<double>(result.history.size());
}

// A process that spins on a core until killed.
class BusyNeighbour {
 public:
  BusyNeighbour() {
    std::string self = "/proc/self/exe";
    std::string flag = "--spin";
    char* argv[] = {self.data(), flag.data(), nullptr};
    if (posix_spawn(&pid_, "/proc/self/exe", nullptr, nullptr, argv, environ) != 0) {
      throw topkfs::Error("cannot start the busy process");
    }
  }
  ~BusyNeighbour() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  BusyNeighbour(const BusyNeighbour&) = delete;
  BusyNeighbour& operator=(const BusyNeighbour&) = delete;

 private:
  pid_t pid_ = 0;
};

[[noreturn]] void spin() {
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;
}

// Returns the median ratio default / 1 thread of the epoch times.
double measure(const char* phase, const topkfs::Dataset& data,
               const std::vector<std::int64_t>& rows, const Config& config) {
  fmt::print("\n== {} ({} at the start)\n", phase, load_average());
  std::vector<double> one, team, ratios;
  for (int round = 0; round < config.rounds; ++round) {
    one.push_back(epoch_seconds(data, rows, config, 1));
    team.push_back(epoch_seconds(data, rows, config, 0));
    ratios.push_back(team.back() / one.back());
    fmt::print("  round {}: 1 thread {:.3f} s/epoch, default {:.3f} s/epoch, ratio {:.3f}\n",
               round + 1, one.back(), team.back(), ratios.back());
    std::fflush(stdout);
  }
  const double ratio = median(ratios);
  fmt::print(
      "  median: 1 thread {:.3f} s/epoch, default {:.3f} s/epoch; default / 1 thread {:.3f}"
      " (speed-up {:.3f}); {} at the end\n",
      median(one), median(team), ratio, 1.0 / ratio, load_average());
  return ratio;
}

Config parse_args(int argc, char** argv) {
  Config config;
  if (const char* env = std::getenv("TOPKFS_DATA_DIR")) config.data_dir = env;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) throw topkfs::OptionError(fmt::format("{} needs a value", arg));
      return std::atol(argv[++i]);
    };
    if (arg == "--rows") {
      config.rows = std::max(1000L, value());
    } else if (arg == "--epochs") {
      config.epochs = static_cast<int>(std::max(1L, value()));
    } else if (arg == "--rounds") {
      config.rounds = static_cast<int>(std::max(1L, value()));
    } else if (arg == "--idle-only") {
      config.busy = false;
    } else if (arg == "--busy-only") {
      config.idle = false;
    } else if (arg.rfind("--", 0) == 0) {
      throw topkfs::OptionError(fmt::format(
          "unknown option {}; usage: team_load_bench [DATA_DIR] [--rows N] [--epochs E] "
          "[--rounds R] [--idle-only] [--busy-only]",
          arg));
    } else {
      config.data_dir = arg;
    }
  }
  if (config.data_dir.empty()) config.data_dir = TOPKFS_SOURCE_DIR "/../shared/data";
  return config;
}

int run(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--spin") spin();
  const Config config = parse_args(argc, argv);
  const topkfs::Dataset data = topkfs::read_dataset(config.data_dir + "/mnist");
  std::vector<std::int64_t> rows;
  if (data.predefined_split) {
    rows = data.predefined_split->train;
  } else {
    rows.resize(static_cast<std::size_t>(data.rows()));
    std::iota(rows.begin(), rows.end(), 0);
  }
  rows.resize(std::min<std::size_t>(rows.size(), static_cast<std::size_t>(config.rows)));
  fmt::print(
      "team_load_bench: dnn-top on {} rows of {} ({} columns), MLP 256-128, batch 128, k 50, "
      "{} epoch(s) per fit, {} rounds; {} cores online\n",
      rows.size(), data.source, data.cols(), config.epochs, config.rounds,
      ::sysconf(_SC_NPROCESSORS_ONLN));
  // A first fit pays the one-off costs (libtorch's first kernels, page faults).
  epoch_seconds(data, rows, config, 1);
  if (config.idle) {
    const double ratio = measure("idle: nothing of ours beside the fits", data, rows, config);
    fmt::print("  idle speed-up of the default {:.3f}: target >= 1.6 {}\n", 1.0 / ratio,
               1.0 / ratio >= 1.6 ? "met" : "MISSED");
  }
  if (config.busy) {
    double ratio = 0.0;
    {
      const BusyNeighbour neighbour;
      ratio = measure("busy: one spinning process beside the fits", data, rows, config);
    }
    fmt::print("  busy: default / 1 thread {:.3f}: target <= 1.0 {}\n", ratio,
               ratio <= 1.0 ? "met" : "MISSED");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "team_load_bench: error: {}\n", error.what());
    return 1;
  }
}
