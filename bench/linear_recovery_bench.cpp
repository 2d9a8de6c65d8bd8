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
#include <omp.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace {

struct Args {
  topkfs::SyntheticOptions data;
  int seeds = 20;
  std::uint64_t first_seed = 0;
  std::vector<std::string> methods = {"lasso", "elastic-net", "elastic-net-top", "lasso-top"};
  std::map<std::string, std::string> options;
  int threads = 0;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

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
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw topkfs::OptionError(fmt::format("{} needs a value", arg));
    const std::string value = argv[++i];
    if (arg == "--samples")
      args.data.samples = std::stoll(value);
    else if (arg == "--features")
      args.data.features = std::stoll(value);
    else if (arg == "--informative")
      args.data.informative = std::stoi(value);
    else if (arg == "--decoys")
      args.data.correlated_decoys = std::stoi(value);
    else if (arg == "--correlation")
      args.data.decoy_correlation = std::stod(value);
    else if (arg == "--noise")
      args.data.noise = std::stod(value);
    else if (arg == "--seeds")
      args.seeds = std::stoi(value);
    else if (arg == "--first-seed")
      args.first_seed = std::stoull(value);
    else if (arg == "--methods")
      args.methods = split_list(value);
    else if (arg == "--threads")
      args.threads = std::stoi(value);
    else if (arg == "--set") {
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

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    const int k = args.data.informative;
    fmt::print(
        "recovery of {} planted columns among {} ({} decoys, correlation {}), {} samples, noise "
        "{}, seeds {}..{}\n",
        k, args.data.features, args.data.correlated_decoys, args.data.decoy_correlation,
        args.data.samples, args.data.noise, args.first_seed, args.first_seed + args.seeds - 1);
    for (const auto& method : args.methods) {
      configured(method, args.options);  // bad names and values fail here, not in a thread
      std::vector<int> exact(static_cast<std::size_t>(args.seeds), 0);
      std::vector<double> overlap(static_cast<std::size_t>(args.seeds), 0.0);
      std::string failure;
      const int threads = args.threads > 0 ? args.threads : omp_get_num_procs();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (int s = 0; s < args.seeds; ++s) {
        try {
          topkfs::SyntheticOptions options = args.data;
          options.seed = args.first_seed + static_cast<std::uint64_t>(s);
          const auto made = topkfs::make_synthetic(options);
          auto selector = configured(method, args.options);
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
      for (int s = 0; s < args.seeds; ++s) {
        recovered += exact[static_cast<std::size_t>(s)];
        mean_overlap += overlap[static_cast<std::size_t>(s)] / args.seeds;
      }
      fmt::print(
          "{:<16} exact recovery {:>2}/{} = {:5.1f}%   mean fraction of the support {:.3f}\n",
          method, recovered, args.seeds, 100.0 * recovered / args.seeds, mean_overlap);
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "linear_recovery_bench: error: {}\n", error.what());
    return 1;
  }
}
