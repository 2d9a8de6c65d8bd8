// Fit and predict time of the forests on MNIST restricted to 50 columns
// (train 60000, predict 10000); bench/speed/trees_vs_sklearn.sh runs it beside
// scikit-learn.
//
//   trees_bench [DATA] [--trees 50] [--threads 1,2] [--repeat 1] [--kind et|rf]
//               [--columns spread|all|c1,c2,...] [--seed 0] [--bootstrap 0|1]
//
// DATA: the MNIST folder (default $TOPKFS_DATA_DIR/mnist, else
// ../shared/data/mnist beside the checkout); any dataset with a predefined split works.
// "spread" columns: 50 evenly spaced columns centred in the row,
// start + step * i with step = m / 50 and start = (m - 49 step) / 2 (for MNIST
// 24, 39, ..., 759), the set tests/cpp/trees_test.cpp uses. Reading the data
// is excluded from the times. Prints one line per thread count, the 2-thread
// speed-up, and the columns (for the scikit-learn side).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bench_machine.hpp"
#include "bench_timing.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/trees/forest.hpp"

namespace {

using topkfs::bench::Clock;
using topkfs::bench::seconds;
using topkfs::bench::timed;
using topkfs::bench::Timing;

struct Args {
  std::string data;
  int trees = 50;
  std::vector<int> threads = {1, 2};
  int repeat = 1;
  topkfs::ForestKind kind = topkfs::ForestKind::ExtraTrees;
  std::string columns = "spread";
  std::uint64_t seed = 0;
  std::optional<bool> bootstrap;  // unset: the kind's default
};

std::vector<std::int64_t> parse_list(const std::string& text) {
  std::vector<std::int64_t> values;
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    values.push_back(std::stoll(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return values;
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw topkfs::OptionError(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--trees") {
      args.trees = std::stoi(value());
    } else if (arg == "--threads") {
      args.threads.clear();
      for (const auto t : parse_list(value())) args.threads.push_back(static_cast<int>(t));
    } else if (arg == "--repeat") {
      args.repeat = std::stoi(value());
    } else if (arg == "--kind") {
      args.kind = topkfs::parse_forest_kind(value());
    } else if (arg == "--columns") {
      args.columns = value();
    } else if (arg == "--bootstrap") {
      args.bootstrap = value() != "0";
    } else if (arg == "--seed") {
      args.seed = std::stoull(value());
    } else if (args.data.empty() && arg.rfind("--", 0) != 0) {
      args.data = arg;
    } else {
      throw topkfs::OptionError(fmt::format(
          "unexpected argument '{}'; usage: trees_bench [DATA] [--trees 50] [--threads 1,2] "
          "[--repeat 1] [--kind et|rf] [--columns spread|all|c1,c2,...] [--seed 0] "
          "[--bootstrap 0|1]",
          arg));
    }
  }
  if (args.data.empty()) {
    args.data = topkfs::bench::default_data_dir(TOPKFS_SOURCE_DIR) + "/mnist";
  }
  return args;
}

std::vector<std::int64_t> choose_columns(const std::string& rule, std::int64_t m) {
  std::vector<std::int64_t> columns;
  if (rule == "all") {
    for (std::int64_t j = 0; j < m; ++j) columns.push_back(j);
  } else if (rule == "spread") {
    const std::int64_t count = std::min<std::int64_t>(50, m);
    const std::int64_t step = m / count;
    const std::int64_t start = (m - step * (count - 1)) / 2;
    for (std::int64_t i = 0; i < count; ++i) columns.push_back(start + step * i);
  } else {
    columns = parse_list(rule);
  }
  return columns;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const auto start = Clock::now();
    const topkfs::Dataset data = topkfs::read_dataset(args.data);
    if (!data.predefined_split) {
      throw topkfs::OptionError(fmt::format("{}: no predefined train/test split", args.data));
    }
    const auto& split = *data.predefined_split;
    const auto columns = choose_columns(args.columns, data.cols());
    fmt::print("read {}: {} x {} in {:.2f} s (not timed below); train {}, test {}, {} columns\n",
               args.data, data.rows(), data.cols(), seconds(start), split.train.size(),
               split.test.size(), columns.size());
    std::vector<std::int32_t> truth;
    for (const auto row : split.test) truth.push_back(data.labels[static_cast<std::size_t>(row)]);

    std::vector<double> totals;
    for (const int threads : args.threads) {
      Timing best_fit;  // the fastest run of fit + predict
      Timing best_predict;
      double accuracy = 0.0;
      double nodes = 0.0;
      for (int r = 0; r < args.repeat; ++r) {
        topkfs::ForestOptions options;
        options.kind = args.kind;
        options.n_estimators = args.trees;
        options.threads = threads;
        options.seed = args.seed;
        options.bootstrap = args.bootstrap;
        topkfs::Forest forest(options);
        const Timing fit = timed([&] { forest.fit(data, split.train, columns); });
        std::vector<std::int32_t> predicted;
        const Timing predict =
            timed([&] { predicted = forest.predict_classes(data.features, split.test); });
        if (fit.wall + predict.wall < best_fit.wall + best_predict.wall) {
          best_fit = fit;
          best_predict = predict;
        }
        accuracy = topkfs::accuracy(truth, predicted);
        nodes = 0.0;
        for (const auto& tree : forest.trees()) nodes += static_cast<double>(tree.nodes.size());
        nodes /= static_cast<double>(forest.trees().size());
      }
      totals.push_back(best_fit.wall + best_predict.wall);
      fmt::print(
          "threads {}: {}({} trees) fit {:.4f} s (cpu {:.4f} s), predict {:.4f} s (cpu {:.4f} s), "
          "accuracy {:.6f}, {:.0f} nodes per tree\n",
          threads, topkfs::to_string(args.kind), args.trees, best_fit.wall, best_fit.cpu,
          best_predict.wall, best_predict.cpu, accuracy, nodes);
    }
    for (std::size_t i = 1; i < totals.size(); ++i) {
      fmt::print("speed-up fit + predict, {} threads vs {}: {:.2f}\n", args.threads[i],
                 args.threads[0], totals[0] / totals[i]);
    }
    fmt::print("columns {}\n", fmt::join(columns, ","));
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "trees_bench: {}\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    fmt::print(stderr, "trees_bench: {}\n", error.what());
    return 2;
  }
}
