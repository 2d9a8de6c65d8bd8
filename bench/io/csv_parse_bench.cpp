// Throughput of read_csv on a ~100 MB numeric CSV, one thread.
//
// The file is generated once (seeded, so every run and bench/io/csv_vs_numpy.sh
// parse the same bytes) at $TOPKFS_CSV_BENCH_FILE or
// /tmp/topkfs_csv_bench_100mb.csv, and reused while it exists. The
// bytes_per_second counter is the parse rate in file bytes per second of
// process CPU time: on a shared machine that is the honest single-core figure
// (the wall time is printed beside it).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "topkfs/io/read_options.hpp"
#include "topkfs/io/readers.hpp"

namespace {

constexpr int kFeatures = 20;
constexpr std::int64_t kTargetBytes = 100'000'000;

std::string bench_path() {
  if (const char* path = std::getenv("TOPKFS_CSV_BENCH_FILE")) return path;
  return "/tmp/topkfs_csv_bench_100mb.csv";
}

std::int64_t size_of(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? static_cast<std::int64_t>(info.st_size) : -1;
}

// Header x0..x19,y; features normal with scales 1e-3..1e3 written with 7
// significant digits (a mix of plain and exponent notation, like real
// exports); the target a noisy linear function of the first five features.
void write_bench_file(const std::string& path) {
  std::mt19937_64 rng(20240607);
  std::normal_distribution<double> normal(0.0, 1.0);
  fmt::memory_buffer text;
  for (int j = 0; j < kFeatures; ++j) fmt::format_to(std::back_inserter(text), "x{},", j);
  fmt::format_to(std::back_inserter(text), "y\n");
  double scale[kFeatures];
  for (int j = 0; j < kFeatures; ++j) scale[j] = std::pow(10.0, (j % 7) - 3);
  while (static_cast<std::int64_t>(text.size()) < kTargetBytes) {
    double y = 0.0;
    for (int j = 0; j < kFeatures; ++j) {
      const double value = normal(rng) * scale[j];
      if (j < 5) y += value / scale[j];
      fmt::format_to(std::back_inserter(text), "{:.7g},", value);
    }
    fmt::format_to(std::back_inserter(text), "{:.7g}\n", y + 0.1 * normal(rng));
  }
  const std::string partial = path + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "wb");
  if (file == nullptr || std::fwrite(text.data(), 1, text.size(), file) != text.size() ||
      std::fclose(file) != 0 || std::rename(partial.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

const std::string& bench_file() {
  static const std::string path = [] {
    std::string name = bench_path();
    if (size_of(name) < kTargetBytes) write_bench_file(name);
    return name;
  }();
  return path;
}

void BM_ReadCsv(benchmark::State& state) {
  const std::string& path = bench_file();
  const std::int64_t bytes = size_of(path);
  topkfs::ReadOptions options;
  options.format = topkfs::Format::Csv;
  std::int64_t rows = 0;
  for (auto _ : state) {
    const topkfs::Dataset data = topkfs::read_csv(path, options);
    rows = data.rows();
    benchmark::DoNotOptimize(data.features.data());
  }
  state.SetBytesProcessed(bytes * state.iterations());
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_ReadCsv)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace

BENCHMARK_MAIN();
