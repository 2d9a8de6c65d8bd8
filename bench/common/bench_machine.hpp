#pragma once
// What the MNIST timing benches share: the load average they print beside
// their figures on a shared machine, medians of per-round figures (a noisy
// round or two do not move them), and their DATA_DIR argument.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"

namespace topkfs::bench {

// The machine's load when a section starts: timings taken with a load above
// the core count are of a machine shared with other work.
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return in ? fmt::format("load average {} {} {}", one, five, fifteen)
            : std::string("load unknown");
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// An argument that is no known flag: the data folder, or (starting with
// "--") an unknown option, refused with the bench's `usage`.
inline void take_data_dir(const std::string& arg, const std::string& usage, std::string& dir) {
  if (arg.rfind("--", 0) == 0) {
    throw OptionError(fmt::format("unknown option {}; usage: {}", arg, usage));
  }
  dir = arg;
}

// The data folder when none was given: $TOPKFS_DATA_DIR, else the shared
// folder beside the checkout (`source_dir`/../shared/data).
inline std::string default_data_dir(const std::string& source_dir) {
  if (const char* env = std::getenv("TOPKFS_DATA_DIR")) return env;
  return source_dir + "/../shared/data";
}

// The body of a bench's main(): `run`'s status, or 1 with the error on stderr.
inline int run_reporting_errors(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "{}: error: {}\n", name, error.what());
    return 1;
  }
}

}  // namespace topkfs::bench
