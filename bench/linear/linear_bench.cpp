// End-to-end timings of the linear models on one CSV problem (made by
// bench/linear/linear_bench_data.py); bench/linear/linear_vs_sklearn.sh runs it beside
// scikit-learn. Reading the file is timed apart and excluded from the fits.
//
//   linear_bench DATA.csv [--threads 1,2] [--repeat 3] [--coef-out PREFIX]
//                [--solver auto|covariance|naive] [--tol 1e-6] [--no-path]
//
// Each fit starts from the Dataset: standardising the columns is part of it.
// Prints one line per measurement and, with --coef-out, writes the
// standardised-scale coefficients of the elastic-net fit and of the last
// Lasso path point for comparison with scikit-learn.
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_timing.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace {

using topkfs::bench::best_of;
using topkfs::bench::Clock;
using topkfs::bench::format_timing;
using topkfs::bench::seconds;
using topkfs::bench::Timing;

struct Args {
  std::string data;
  std::vector<int> threads = {1, 2};
  topkfs::bench::TimedRunArgs run;  // --tol defaults to 1e-6
  std::string solver = "auto";
  bool path = true;
};

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (args.run.take(arg, argc, argv, i)) continue;  // --repeat, --tol, --coef-out
    if (arg == "--threads") {
      args.threads = topkfs::bench::int_list(arg, topkfs::bench::flag_value(argc, argv, i));
    } else if (arg == "--solver") {
      args.solver = topkfs::bench::flag_value(argc, argv, i);
    } else if (arg == "--no-path") {
      args.path = false;
    } else if (args.data.empty()) {
      args.data = arg;
    } else {
      throw topkfs::OptionError(fmt::format("unexpected argument '{}'", arg));
    }
  }
  if (args.data.empty()) {
    throw topkfs::OptionError(
        "usage: linear_bench DATA.csv [--threads 1,2] [--repeat 3] [--coef-out PREFIX] "
        "[--solver auto|covariance|naive] [--tol 1e-6] [--no-path]");
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    auto start = Clock::now();
    topkfs::ReadOptions read;
    read.task = topkfs::TaskHint::Regression;
    const topkfs::Dataset data = topkfs::read_dataset(args.data, read);
    fmt::print("read {}: {} x {} in {:.3f} s (not part of any fit below)\n", args.data, data.rows(),
               data.cols(), seconds(start));
    std::vector<std::int64_t> rows(static_cast<std::size_t>(data.rows()));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
    const Eigen::VectorXd y = data.targets.col(0);

    // scikit-learn ElasticNet(alpha=0.1, l1_ratio=0.5): lambda2 = alpha l1_ratio,
    // lambda1 = alpha (1 - l1_ratio).
    topkfs::LinearPenalty enet;
    enet.lambda1 = 0.05;
    enet.lambda2 = 0.05;
    topkfs::SolverControl control;
    control.tol = args.run.tol;
    control.solver = topkfs::parse_linear_solver(args.solver);

    for (int threads : args.threads) {
      topkfs::LinearFit fit, top_fit;
      std::int64_t gram_columns = 0;
      std::vector<topkfs::LinearFit> path;
      const Timing standardise = best_of(
          args.run.repeat, [&] { topkfs::LinearProblem problem(data.features, rows, y, threads); });
      const Timing enet_time = best_of(args.run.repeat, [&] {
        topkfs::LinearProblem problem(data.features, rows, y, threads);
        fit = topkfs::fit_linear(problem, enet, control);
        gram_columns = problem.gram_columns_computed();
      });
      fmt::print(
          "threads {}: elastic-net fit (lambda1 = lambda2 = 0.05) {}: standardising {}; {} sweeps, "
          "{} non-zero, objective {:.8g}, {} updates ({} Gram columns), converged {}\n",
          threads, format_timing(enet_time), format_timing(standardise), fit.sweeps, fit.nonzero(),
          fit.objective, topkfs::to_string(fit.solver), gram_columns, fit.converged);

      topkfs::LinearPenalty top = enet;
      top.lambda3 = 1.0;
      top.k = 20;
      const Timing top_time = best_of(args.run.repeat, [&] {
        topkfs::LinearProblem problem(data.features, rows, y, threads);
        top_fit = topkfs::fit_linear(problem, top, control);
      });
      fmt::print(
          "threads {}: elastic-net-top fit (same lambdas, lambda3 = 1, k = 20) {}: {} sweeps, {} "
          "non-zero, objective {:.8g}; time ratio top/plain {:.2f} (cpu {:.2f})\n",
          threads, format_timing(top_time), top_fit.sweeps, top_fit.nonzero(), top_fit.objective,
          top_time.wall / enet_time.wall, top_time.cpu / enet_time.cpu);

      if (!args.path) continue;
      // The full Gram matrix alone: the floor under a whole path, which needs
      // nearly all of it (scikit-learn's lasso_path computes it too).
      Timing gram_time;
      for (int r = 0; r < args.run.repeat; ++r) {
        topkfs::LinearProblem problem(data.features, rows, y, threads);
        const Timing once = best_of(1, [&] { problem.compute_gram(); });
        if (once.wall < gram_time.wall) gram_time = once;
      }
      fmt::print("threads {}: full Gram matrix X'X/n (one dsyrk) {}: {:.1f} GFLOP/s\n", threads,
                 format_timing(gram_time),
                 static_cast<double>(data.rows()) * static_cast<double>(data.cols()) *
                     static_cast<double>(data.cols() + 1) / gram_time.wall / 1e9);
      topkfs::LinearPenalty lasso;
      const Timing path_time = best_of(args.run.repeat, [&] {
        topkfs::LinearProblem problem(data.features, rows, y, threads);
        const auto grid = topkfs::lambda2_grid(topkfs::lambda2_max(problem, lasso), 100, 1e-3);
        path = topkfs::fit_linear_path(problem, lasso, grid, control);
      });
      int sweeps = 0;
      bool converged = true;
      for (const auto& point : path) {
        sweeps += point.sweeps;
        converged = converged && point.converged;
      }
      fmt::print(
          "threads {}: lasso path (100 points, eps 1e-3) {}: {} sweeps in all, {} non-zero "
          "at the end, converged {}\n",
          threads, format_timing(path_time), sweeps, path.back().nonzero(), converged);

      if (!args.run.coef_out.empty() && threads == args.threads.front()) {
        topkfs::bench::write_matrix(args.run.coef_out + "enet.txt", fit.coef_std);
        topkfs::bench::write_matrix(args.run.coef_out + "path_last.txt", path.back().coef_std);
        topkfs::bench::write_matrix(args.run.coef_out + "path_mid.txt",
                                    path[path.size() / 2].coef_std);
      }
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "linear_bench: error: {}\n", error.what());
    return 1;
  }
}
