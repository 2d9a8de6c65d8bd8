// The recovery study of the linear models: on seeded synthetic data with a
// planted support and decoys correlated with it (data/synthetic.hpp), how
// often does a method's selection of k = |support| columns equal the support?
//
//   linear_recovery_bench [--samples 200] [--features 200] [--informative 10]
//       [--decoys 10] [--correlation 0.9] [--noise 0.5] [--seeds 20]
//       [--first-seed 0] [--methods lasso,elastic-net,elastic-net-top,lasso-top]
//       [--set NAME=VALUE ...] [--threads 0]
//
// --set passes an option to every method that has it (e.g. --set lambda3=2).
// Prints, per method, the exact-recovery rate and the mean fraction of the
// support selected. Seeds run in parallel (one fit per thread).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"

namespace {

struct Args {
  topkfs::SyntheticOptions data;
  topkfs::bench::SeededRunArgs run;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.data.samples = 200;
  args.data.features = 200;
  args.data.informative = 10;
  args.data.correlated_decoys = 10;
  args.data.decoy_correlation = 0.9;
  args.data.noise = 0.5;
  args.data.target = topkfs::SyntheticOptions::Target::Real;
  args.data.relation = topkfs::SyntheticOptions::Relation::Linear;
  args.run.seeds = 20;
  args.run.methods = {"lasso", "elastic-net", "elastic-net-top", "lasso-top"};
  topkfs::bench::parse_flag_pairs(argc, argv,
                                  [&](const std::string& flag, const std::string& value) {
                                    using topkfs::bench::number;
                                    if (flag == "--samples")
                                      args.data.samples = number<std::int64_t>(flag, value);
                                    else if (flag == "--features")
                                      args.data.features = number<std::int64_t>(flag, value);
                                    else if (flag == "--informative")
                                      args.data.informative = number<int>(flag, value);
                                    else if (flag == "--decoys")
                                      args.data.correlated_decoys = number<int>(flag, value);
                                    else if (flag == "--correlation")
                                      args.data.decoy_correlation = number<double>(flag, value);
                                    else if (flag == "--noise")
                                      args.data.noise = number<double>(flag, value);
                                    else
                                      return args.run.take(flag, value);
                                    return true;
                                  });
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const int k = args.data.informative;
    fmt::print(
        "recovery of {} planted columns among {} ({} decoys, correlation {}), {} samples, noise "
        "{}, seeds {}..{}\n",
        k, args.data.features, args.data.correlated_decoys, args.data.decoy_correlation,
        args.data.samples, args.data.noise, args.run.first_seed,
        args.run.first_seed + args.run.seeds - 1);
    for (const auto& method : args.run.methods) {
      // Bad names and values fail here, not in a thread.
      topkfs::bench::configured_selector(method, args.run.options);
      std::vector<int> exact(static_cast<std::size_t>(args.run.seeds), 0);
      std::vector<double> overlap(static_cast<std::size_t>(args.run.seeds), 0.0);
      std::string failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(args.run.thread_count())
      for (int s = 0; s < args.run.seeds; ++s) {
        try {
          topkfs::SyntheticOptions options = args.data;
          options.seed = args.run.first_seed + static_cast<std::uint64_t>(s);
          const auto made = topkfs::make_synthetic(options);
          auto selector = topkfs::bench::configured_selector(method, args.run.options);
          std::vector<std::int64_t> rows(static_cast<std::size_t>(made.data.rows()));
          for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
          auto result = selector->fit(made.data, rows, k, {});
          auto selected = result.selected;
          std::sort(selected.begin(), selected.end());
          std::vector<std::int64_t> common;
          std::set_intersection(selected.begin(), selected.end(), made.informative.begin(),
                                made.informative.end(), std::back_inserter(common));
          overlap[static_cast<std::size_t>(s)] = static_cast<double>(common.size()) / k;
          exact[static_cast<std::size_t>(s)] = static_cast<int>(common.size()) == k;
        } catch (const topkfs::Error& error) {
#pragma omp critical
          failure = error.what();
        }
      }
      if (!failure.empty()) throw topkfs::Error(failure);
      int recovered = 0;
      double mean_overlap = 0.0;
      for (int s = 0; s < args.run.seeds; ++s) {
        recovered += exact[static_cast<std::size_t>(s)];
        mean_overlap += overlap[static_cast<std::size_t>(s)] / args.run.seeds;
      }
      fmt::print(
          "{:<16} exact recovery {:>2}/{} = {:5.1f}%   mean fraction of the support {:.3f}\n",
          method, recovered, args.run.seeds, 100.0 * recovered / args.run.seeds, mean_overlap);
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "linear_recovery_bench: error: {}\n", error.what());
    return 1;
  }
}
