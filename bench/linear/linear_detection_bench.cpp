// The detection protocol of the paper (Table 2; docs/method.md §3, protocol 1)
// for the linear models: append as many noise features as there are original
// ones (inject_noise_features), select k = number of original features from
// all rows, and score the selection by F1 against the original features.
//
//   linear_detection_bench [--data-dir ../shared/data] [--seeds 10] [--first-seed 0]
//       [--methods elastic-net,elastic-net-top] [--set NAME=VALUE ...]
//       [--threads 0]
//
// The data directory defaults to $TOPKFS_DATA_DIR, else ../shared/data beside
// the checkout.
//
// The data and the score are those of `topkfs evaluate --protocol detection`
// (scoring/detection.hpp): the columns are shuffled (seeded) before selection so
// that no tie rule can favour the original columns, and with |selected| =
// |original| = k, precision = recall = F1. Prints a Markdown table: mean
// (standard deviation, min..max) of F1 over the noise seeds, beside the
// paper's Table 2.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/scoring/detection.hpp"

namespace {

struct Benchmark {
  const char* name;       // as in the paper
  const char* path;       // under the data directory
  double paper_enet;      // Table 2, Elastic Net
  double paper_enet_top;  // Table 2, Elastic Net^top
};

// Table 2 of Wu & Cheng (F1, %).
const Benchmark benchmarks[] = {
    {"Pyrimidines", "pyrim/pyrim.csv", 51.9, 51.9},
    {"Kinematics", "kin8nm/kin8nm.csv", 62.5, 62.5},
    {"CompAct", "cpu_act/cpu_act.csv", 47.6, 47.6},
    {"Ailerons", "ailerons/ailerons.csv", 62.5, 82.5},
};

// ../shared/data beside the checkout (as the tests), or $TOPKFS_DATA_DIR.
std::string default_data_dir() {
  if (const char* env = std::getenv("TOPKFS_DATA_DIR")) return env;
  const std::string source = __FILE__;  // .../bench/linear/linear_detection_bench.cpp
  return source.substr(0, source.rfind('/')) + "/../../../shared/data";
}

struct Args {
  std::string data_dir = default_data_dir();
  topkfs::bench::SeededRunArgs run;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.run.methods = {"elastic-net", "elastic-net-top"};
  topkfs::bench::parse_flag_pairs(argc, argv,
                                  [&](const std::string& flag, const std::string& value) {
                                    if (flag != "--data-dir") return args.run.take(flag, value);
                                    args.data_dir = value;
                                    return true;
                                  });
  return args;
}

struct Summary {
  double mean = 0, sd = 0, min = 0, max = 0;
};

Summary summarise(const std::vector<double>& values) {
  Summary s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  for (double v : values) s.mean += v / static_cast<double>(values.size());
  for (double v : values) s.sd += (v - s.mean) * (v - s.mean);
  s.sd = values.size() > 1 ? std::sqrt(s.sd / static_cast<double>(values.size() - 1)) : 0.0;
  return s;
}

// F1 (%) of `method` on the detection data of each seed, the seeds in parallel.
std::vector<double> detection_scores(const topkfs::Dataset& data, const std::string& method,
                                     const topkfs::bench::SeededRunArgs& run, const char* name) {
  std::vector<double> f1(static_cast<std::size_t>(run.seeds));
  const int k = static_cast<int>(data.cols());
  std::string failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(run.thread_count())
  for (int s = 0; s < run.seeds; ++s) {
    const std::uint64_t seed = run.first_seed + static_cast<std::uint64_t>(s);
    try {
      const topkfs::DetectionData detection = topkfs::make_detection_data(data, seed);
      auto selector = topkfs::bench::configured_selector(method, run.options);
      std::vector<std::int64_t> rows(static_cast<std::size_t>(detection.data.rows()));
      for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
      const auto result = selector->fit(detection.data, rows, k, {});
      if (!result.warnings.empty()) {
#pragma omp critical
        fmt::print(stderr, "{} {} seed {}: {}\n", name, method, seed,
                   fmt::join(result.warnings, "; "));
      }
      f1[static_cast<std::size_t>(s)] = topkfs::detection_f1(detection, result.selected);
    } catch (const topkfs::Error& error) {
#pragma omp critical
      failure = error.what();
    }
  }
  if (!failure.empty()) throw topkfs::Error(failure);
  return f1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const auto& run = args.run;
    std::string settings;
    for (const auto& [name, value] : run.options) settings += fmt::format(" --{} {}", name, value);
    fmt::print(
        "Detection F1 (%), k = number of original features, noise seeds {}..{}, options:{}\n\n",
        run.first_seed, run.first_seed + run.seeds - 1, settings.empty() ? " defaults" : settings);
    std::string header = "| dataset | n x m |";
    std::string rule = "|---|---|";
    for (const auto& method : run.methods) {
      // Bad names and values fail here, not in a thread.
      topkfs::bench::configured_selector(method, run.options);
      header += fmt::format(" {} (ours) |", method);
      rule += "---|";
    }
    fmt::print("{} paper Elastic Net | paper Elastic Net^top |\n{}---|---|\n", header, rule);

    for (const auto& benchmark : benchmarks) {
      topkfs::ReadOptions read;
      read.task = topkfs::TaskHint::Regression;  // cpu_act's 0..99 integers are a real target
      const topkfs::Dataset data = topkfs::read_dataset(args.data_dir + "/" + benchmark.path, read);
      std::string row = fmt::format("| {} | {} x {} |", benchmark.name, data.rows(), data.cols());
      for (const auto& method : run.methods) {
        const Summary s = summarise(detection_scores(data, method, run, benchmark.name));
        row += fmt::format(" {:.1f} (sd {:.1f}, {:.1f}..{:.1f}) |", s.mean, s.sd, s.min, s.max);
      }
      fmt::print("{} {:.1f} | {:.1f} |\n", row, benchmark.paper_enet, benchmark.paper_enet_top);
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "linear_detection_bench: error: {}\n", error.what());
    return 1;
  }
}
