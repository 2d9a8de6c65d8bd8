// Recovery of a planted support on wide, short data (many more columns than
// rows, as in gene expression): on seeded synthetic data (data/synthetic.hpp),
// which fraction of the planted columns does each method's selection of
// k = |support| columns hold, and how long does a fit take? Any registered
// method, dnn-top and elastic-net-top first (docs/algorithms.md, "Wide, short
// data").
//
//   wide_recovery_bench [--samples 100] [--features 5000] [--informative 10]
//       [--decoys 0] [--correlation 0.9] [--noise 0.1] [--relation nonlinear]
//       [--target classes] [--classes 2] [--seeds 5] [--first-seed 0]
//       [--methods dnn-top,elastic-net-top] [--set NAME=VALUE ...]
//
// Seeds and methods run one after the other, each fit on one thread (the
// fit times are one core's). --set passes an option to every method that has
// it (e.g. --set lambda2=0.001). Prints a line per fit and, per method, the
// mean fraction of the support, the exact recoveries and the mean fit time.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/methods/registry.hpp"

namespace {

struct WideArgs {
  topkfs::SyntheticOptions data;
  topkfs::bench::SeededRunArgs run;
};

WideArgs parse_wide_args(int argc, char** argv) {
  WideArgs args;
  args.data.samples = 100;
  args.data.features = 5000;
  args.data.informative = 10;
  args.data.correlated_decoys = 0;
  args.data.decoy_correlation = 0.9;
  args.data.noise = 0.1;
  args.data.target = topkfs::SyntheticOptions::Target::Classes;
  args.data.relation = topkfs::SyntheticOptions::Relation::Nonlinear;
  args.run.seeds = 5;
  args.run.methods = {"dnn-top", "elastic-net-top"};
  topkfs::bench::parse_flag_pairs(
      argc, argv, [&](const std::string& flag, const std::string& value) {
        using topkfs::bench::number;
        if (flag == "--samples") {
          args.data.samples = number<std::int64_t>(flag, value);
        } else if (flag == "--features") {
          args.data.features = number<std::int64_t>(flag, value);
        } else if (flag == "--informative") {
          args.data.informative = number<int>(flag, value);
        } else if (flag == "--decoys") {
          args.data.correlated_decoys = number<int>(flag, value);
        } else if (flag == "--correlation") {
          args.data.decoy_correlation = number<double>(flag, value);
        } else if (flag == "--noise") {
          args.data.noise = number<double>(flag, value);
        } else if (flag == "--classes") {
          args.data.classes = number<int>(flag, value);
        } else if (flag == "--relation") {
          if (value != "linear" && value != "nonlinear") {
            throw topkfs::OptionError("--relation takes linear or nonlinear");
          }
          args.data.relation = value == "linear" ? topkfs::SyntheticOptions::Relation::Linear
                                                 : topkfs::SyntheticOptions::Relation::Nonlinear;
        } else if (flag == "--target") {
          if (value != "classes" && value != "real") {
            throw topkfs::OptionError("--target takes classes or real");
          }
          args.data.target = value == "classes" ? topkfs::SyntheticOptions::Target::Classes
                                                : topkfs::SyntheticOptions::Target::Real;
        } else {
          return args.run.take(flag, value);
        }
        return true;
      });
  args.data.validate();
  return args;
}

// A registered method with one thread and the --set options it has.
std::unique_ptr<topkfs::Selector> wide_selector(const std::string& method,
                                                const std::map<std::string, std::string>& set) {
  auto selector = topkfs::make_selector(method);
  if (selector->has_option("threads")) selector->set_option("threads", "1");
  for (const auto& [name, value] : set) {
    if (selector->has_option(name)) selector->set_option(name, value);
  }
  return selector;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const WideArgs args = parse_wide_args(argc, argv);
    const int k = args.data.informative;
    fmt::print(
        "recovery of {} planted columns among {} ({} rows, {} link, noise {}), seeds {}..{}\n", k,
        args.data.features, args.data.samples,
        args.data.relation == topkfs::SyntheticOptions::Relation::Linear ? "linear" : "nonlinear",
        args.data.noise, args.run.first_seed, args.run.first_seed + args.run.seeds - 1);
    for (const auto& method : args.run.methods) {
      wide_selector(method, args.run.options);  // a bad name or value fails before any fit
      double fraction_sum = 0.0;
      double wider_sum = 0.0;
      double seconds_sum = 0.0;
      int exact = 0;
      for (int s = 0; s < args.run.seeds; ++s) {
        topkfs::SyntheticOptions options = args.data;
        options.seed = args.run.first_seed + static_cast<std::uint64_t>(s);
        const auto made = topkfs::make_synthetic(options);
        auto selector = wide_selector(method, args.run.options);
        std::vector<std::int64_t> rows(static_cast<std::size_t>(made.data.rows()));
        for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
        const auto start = std::chrono::steady_clock::now();
        const auto result = selector->fit(made.data, rows, k, {});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        auto selected = result.selected;
        std::sort(selected.begin(), selected.end());
        std::vector<std::int64_t> common;
        std::set_intersection(selected.begin(), selected.end(), made.informative.begin(),
                              made.informative.end(), std::back_inserter(common));
        const double fraction = static_cast<double>(common.size()) / k;
        // A softer figure where few are found: the planted columns among the
        // first 5 k of the ranking.
        const auto head = static_cast<std::ptrdiff_t>(
            std::min<std::size_t>(result.ranking.size(), 5 * static_cast<std::size_t>(k)));
        std::vector<std::int64_t> wider(result.ranking.begin(), result.ranking.begin() + head);
        std::sort(wider.begin(), wider.end());
        std::vector<std::int64_t> wider_common;
        std::set_intersection(wider.begin(), wider.end(), made.informative.begin(),
                              made.informative.end(), std::back_inserter(wider_common));
        fmt::print("  {} seed {}: {}/{} planted columns ({} in the first {}), {:.1f} s\n", method,
                   options.seed, common.size(), k, wider_common.size(), head, seconds);
        fraction_sum += fraction;
        wider_sum += static_cast<double>(wider_common.size()) / k;
        seconds_sum += seconds;
        exact += static_cast<int>(common.size()) == k;
      }
      fmt::print(
          "{:<16} mean fraction of the support {:.3f} (in the first 5 k {:.3f})   exact {}/{}   "
          "{:.1f} s a fit\n",
          method, fraction_sum / args.run.seeds, wider_sum / args.run.seeds, exact, args.run.seeds,
          seconds_sum / args.run.seeds);
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "wide_recovery_bench: error: {}\n", error.what());
    return 1;
  }
}
