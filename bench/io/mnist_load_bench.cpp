// Loading the four gzip MNIST IDX files into one Dataset: seconds, MB/s of
// uncompressed payload, and the peak resident memory over the float32
// matrix (70000 x 784 x 4 bytes; the target is at most 1.3).
//
// Usage: mnist_load_bench [benchmark flags] [DATA_DIR] [--peak-only]
//   DATA_DIR: the shared data folder (default $TOPKFS_DATA_DIR, else
//   ../shared/data beside the checkout); MNIST is read from DATA_DIR/mnist.
//   --peak-only: load once, print the peak ratio and exit.
// The peak is measured on the very first load of the process, before any
// benchmark iteration, since later iterations would blur it.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_machine.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace {

constexpr double kRows = 70000;
constexpr double kPixels = 784;
// Uncompressed bytes of the four files: pixels, labels, two 16-byte image
// headers and two 8-byte label headers.
constexpr double kPayloadBytes = kRows * kPixels + kRows + 2 * 16 + 2 * 8;
constexpr double kMatrixBytes = kRows * kPixels * sizeof(float);

std::string g_mnist_dir;
double g_peak_over_matrix = 0;

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // ru_maxrss is in KiB on Linux
}

void report(benchmark::State& state) {
  const auto loads = static_cast<double>(state.iterations());
  state.counters["MB_per_s"] =
      benchmark::Counter(kPayloadBytes * loads / 1e6, benchmark::Counter::kIsRate);
  state.counters["seconds"] =
      benchmark::Counter(loads, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["peak_over_matrix"] = g_peak_over_matrix;
  state.SetBytesProcessed(static_cast<std::int64_t>(kPayloadBytes * loads));
}

// The reader alone.
void BM_read_idx_mnist(benchmark::State& state) {
  for (auto _ : state) {
    auto data = topkfs::read_idx(g_mnist_dir, {});
    benchmark::DoNotOptimize(data.features.data());
  }
  report(state);
}

// What a user gets: format detection, the reader, the NaN and class checks.
void BM_read_dataset_mnist(benchmark::State& state) {
  for (auto _ : state) {
    auto data = topkfs::read_dataset(g_mnist_dir);
    benchmark::DoNotOptimize(data.features.data());
  }
  report(state);
}

BENCHMARK(BM_read_idx_mnist)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_read_dataset_mnist)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  bool peak_only = false;
  std::string data_dir;
  if (const char* env = std::getenv("TOPKFS_DATA_DIR")) data_dir = env;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--peak-only") == 0) {
      peak_only = true;
    } else {
      data_dir = argv[i];
    }
  }
  if (data_dir.empty()) data_dir = topkfs::bench::default_data_dir(TOPKFS_SOURCE_DIR);
  g_mnist_dir = data_dir + "/mnist";

  try {
    const auto data = topkfs::read_dataset(g_mnist_dir);
    g_peak_over_matrix = peak_rss_bytes() / kMatrixBytes;
    std::printf("first load: %lld x %lld, peak RSS %.1f MB = %.3f x the float32 matrix (%.1f MB)\n",
                static_cast<long long>(data.rows()), static_cast<long long>(data.cols()),
                peak_rss_bytes() / 1e6, g_peak_over_matrix, kMatrixBytes / 1e6);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mnist_load_bench: cannot load %s: %s\n", g_mnist_dir.c_str(),
                 error.what());
    return 1;
  }
  if (peak_only) return 0;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
