// The detection protocol of the paper (Table 2; DESIGN.md section 2, item 1)
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
// With |selected| = |original| = k, precision = recall = F1. The columns are
// shuffled (seeded) before selection so that no tie rule can favour the
// original columns. Prints a
// Markdown table: mean (standard deviation, min..max) of F1 over the noise
// seeds, beside the paper's Table 2.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/noise_injection.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/linear/linear_selector.hpp"

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
  const std::string source = __FILE__;  // .../bench/linear_detection_bench.cpp
  return source.substr(0, source.rfind('/')) + "/../../shared/data";
}

struct Args {
  std::string data_dir = default_data_dir();
  int seeds = 10;
  int first_seed = 0;
  std::vector<std::string> methods = {"elastic-net", "elastic-net-top"};
  std::map<std::string, std::string> options;
  int threads = 0;
};

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw topkfs::OptionError(fmt::format("{} needs a value", arg));
    const std::string value = argv[++i];
    if (arg == "--data-dir") {
      args.data_dir = value;
    } else if (arg == "--seeds") {
      args.seeds = std::stoi(value);
    } else if (arg == "--first-seed") {
      args.first_seed = std::stoi(value);
    } else if (arg == "--threads") {
      args.threads = std::stoi(value);
    } else if (arg == "--methods") {
      args.methods.clear();
      for (std::size_t start = 0; start <= value.size();) {
        const auto comma = std::min(value.find(',', start), value.size());
        args.methods.push_back(value.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (arg == "--set") {
      const auto equals = value.find('=');
      if (equals == std::string::npos) throw topkfs::OptionError("--set takes NAME=VALUE");
      args.options[value.substr(0, equals)] = value.substr(equals + 1);
    } else {
      throw topkfs::OptionError(fmt::format("unknown argument '{}'", arg));
    }
  }
  return args;
}

// A selector of `method` with the options that apply to it, one BLAS thread
// (the seeds run in parallel instead).
std::unique_ptr<topkfs::Selector> configured(const std::string& method,
                                             const std::map<std::string, std::string>& options) {
  auto selector = topkfs::make_linear_selector(method);
  selector->set_option("threads", "1");
  for (const auto& [name, value] : options) {
    if (selector->has_option(name)) selector->set_option(name, value);
  }
  return selector;
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

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    std::string settings;
    for (const auto& [name, value] : args.options) settings += fmt::format(" --{} {}", name, value);
    fmt::print(
        "Detection F1 (%), k = number of original features, noise seeds {}..{}, options:{}\n\n",
        args.first_seed, args.first_seed + args.seeds - 1,
        settings.empty() ? " defaults" : settings);
    std::string header = "| dataset | n x m |";
    std::string rule = "|---|---|";
    for (const auto& method : args.methods) {
      configured(method, args.options);  // bad names and values fail here, not in a thread
      header += fmt::format(" {} (ours) |", method);
      rule += "---|";
    }
    fmt::print("{} paper Elastic Net | paper Elastic Net^top |\n{}---|---|\n", header, rule);

    for (const auto& benchmark : benchmarks) {
      topkfs::ReadOptions read;
      read.task = topkfs::TaskHint::Regression;  // cpu_act's 0..99 integers are a real target
      const topkfs::Dataset data = topkfs::read_dataset(args.data_dir + "/" + benchmark.path, read);
      const int k = static_cast<int>(data.cols());
      std::string row = fmt::format("| {} | {} x {} |", benchmark.name, data.rows(), data.cols());
      for (const auto& method : args.methods) {
        std::vector<double> f1(static_cast<std::size_t>(args.seeds));
        const int threads = args.threads > 0 ? args.threads : omp_get_num_procs();
        std::string failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int seed = args.first_seed; seed < args.first_seed + args.seeds; ++seed) {
          try {
            const auto noisy =
                topkfs::inject_noise_features(data, static_cast<std::uint64_t>(seed));
            // Columns in a seeded random order: ties among zero weights go to
            // the lower index, and the original columns come first, so without
            // this a method that leaves weights at zero would be credited.
            topkfs::Rng rng(topkfs::derive_seed(static_cast<std::uint64_t>(seed), 1));
            const auto order = rng.permutation(noisy.data.cols());
            const topkfs::Dataset shuffled = topkfs::take_columns(noisy.data, order);
            auto selector = configured(method, args.options);
            std::vector<std::int64_t> rows(static_cast<std::size_t>(shuffled.rows()));
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
            const auto result = selector->fit(shuffled, rows, k, {});
            const auto hits = std::count_if(
                result.selected.begin(), result.selected.end(),
                [&](std::int64_t column) { return order[static_cast<std::size_t>(column)] < k; });
            if (!result.warnings.empty()) {
#pragma omp critical
              fmt::print(stderr, "{} {} seed {}: {}\n", benchmark.name, method, seed,
                         fmt::join(result.warnings, "; "));
            }
            f1[static_cast<std::size_t>(seed - args.first_seed)] =
                100.0 * static_cast<double>(hits) / k;
          } catch (const topkfs::Error& error) {
#pragma omp critical
            failure = error.what();
          }
        }
        if (!failure.empty()) throw topkfs::Error(failure);
        const Summary s = summarise(f1);
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
