#pragma once
// Timing of the benches (linear_bench, linear_class_bench, trees_bench): wall
// and CPU time of one run or of the fastest of several, and coefficient files
// for the comparison scripts.
#include <fmt/format.h>

#include <Eigen/Core>
#include <chrono>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>

namespace topkfs::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Wall and CPU time of the fastest of `repeat` runs: the machine is shared,
// the minimum is the least disturbed; on a busy machine the CPU time of one
// thread is the steadier figure.
struct Timing {
  double wall = 1e300;
  double cpu = 1e300;
};

inline Timing timed(const std::function<void()>& run) {
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  run();
  const double wall = seconds(start);
  return {wall, cpu_seconds() - cpu_start};
}

inline Timing best_of(int repeat, const std::function<void()>& run) {
  Timing best;
  for (int r = 0; r < repeat; ++r) {
    const Timing one = timed(run);
    if (one.wall < best.wall) best = one;
  }
  return best;
}

inline std::string format_timing(const Timing& t) {
  return fmt::format("{:.4f} s (cpu {:.4f} s)", t.wall, t.cpu);
}

// One value per line (a matrix row by row, its entries separated by spaces).
inline void write_matrix(const std::string& path, const Eigen::MatrixXd& m) {
  std::ofstream out(path);
  out.precision(17);
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) out << (j ? " " : "") << m(i, j);
    out << "\n";
  }
}

}  // namespace topkfs::bench
