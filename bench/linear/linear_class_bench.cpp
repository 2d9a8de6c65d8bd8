// Timings of the class families on problems made by
// bench/linear/linear_class_bench_data.py; bench/linear/linear_class_vs_references.sh runs
// it beside scikit-learn (binomial) and R glmnet (multinomial path). Reading
// the files is excluded; each fit starts from the Dataset, so standardising
// is part of it. One thread.
//
//   linear_class_bench BINOMIAL.csv MULTINOMIAL.csv [--repeat 3] [--tol 1e-10]
//                      [--coef-out PREFIX] [--binomial-only]
//
// Binomial: one elastic-net fit at lambda1 = lambda2 = 0.005 (scikit-learn's
// C = 1 / (0.01 n), l1_ratio = 0.5). Multinomial: the 100-point grouped-lasso
// path (lambda1 = 0) from lambda2_max down to 1e-3 of it.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_timing.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/linear/glm_model.hpp"

namespace {

using topkfs::bench::best_of;
using topkfs::bench::format_timing;

struct Args {
  std::string binomial, multinomial;
  topkfs::bench::TimedRunArgs run;
  bool binomial_only = false;
};

Args parse_args(int argc, char** argv) {
  Args args;
  args.run.tol = 1e-10;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (args.run.take(arg, argc, argv, i)) continue;  // --repeat, --tol, --coef-out
    if (arg == "--binomial-only") {
      args.binomial_only = true;
    } else if (args.binomial.empty()) {
      args.binomial = arg;
    } else if (args.multinomial.empty()) {
      args.multinomial = arg;
    } else {
      throw topkfs::OptionError(fmt::format("unexpected argument '{}'", arg));
    }
  }
  if (args.multinomial.empty()) {
    throw topkfs::OptionError(
        "usage: linear_class_bench BINOMIAL.csv MULTINOMIAL.csv [--repeat 3] [--tol 1e-10] "
        "[--coef-out PREFIX] [--binomial-only]");
  }
  return args;
}

struct ClassData {
  topkfs::Dataset data;
  std::vector<std::int64_t> rows;
  topkfs::ClassTarget target;
};

ClassData read_classes(const std::string& path) {
  topkfs::ReadOptions read;
  read.task = topkfs::TaskHint::Classification;
  ClassData out;
  out.data = topkfs::read_dataset(path, read);
  for (std::int64_t i = 0; i < out.data.rows(); ++i) out.rows.push_back(i);
  out.target.labels = out.data.labels;
  out.target.classes = out.data.num_classes();
  fmt::print("read {}: {} x {}, {} classes\n", path, out.data.rows(), out.data.cols(),
             out.target.classes);
  return out;
}

topkfs::LinearProblem make_problem(const ClassData& d) {
  return topkfs::LinearProblem(d.data.features, d.rows,
                               Eigen::VectorXd::Zero(static_cast<Eigen::Index>(d.rows.size())), 1);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse_args(argc, argv);
    topkfs::SolverControl control;
    control.tol = args.run.tol;

    const ClassData binomial = read_classes(args.binomial);
    topkfs::LinearPenalty enet;
    enet.lambda1 = 0.005;
    enet.lambda2 = 0.005;
    topkfs::GlmFit fit;
    const auto fit_time = best_of(args.run.repeat, [&] {
      const topkfs::LinearProblem problem = make_problem(binomial);
      fit =
          topkfs::fit_glm(problem, binomial.target, topkfs::LinearFamily::Binomial, enet, control);
    });
    fmt::print(
        "binomial elastic-net fit (lambda1 = lambda2 = 0.005) {}: {} outer steps, {} sweeps, {} "
        "non-zero, objective {:.10g}, converged {}\n",
        format_timing(fit_time), fit.outer_steps, fit.sweeps, fit.nonzero(), fit.objective,
        fit.converged);

    if (!args.run.coef_out.empty()) {
      topkfs::bench::write_matrix(args.run.coef_out + "binomial.txt", fit.coef_std);
    }
    if (args.binomial_only) return 0;

    const ClassData multinomial = read_classes(args.multinomial);
    const topkfs::LinearPenalty lasso;
    std::vector<topkfs::GlmFit> path;
    const auto path_time = best_of(args.run.repeat, [&] {
      const topkfs::LinearProblem problem = make_problem(multinomial);
      const auto grid =
          topkfs::lambda2_grid(topkfs::glm_lambda2_max(problem, multinomial.target,
                                                       topkfs::LinearFamily::Multinomial, lasso),
                               100, 1e-3);
      path = topkfs::fit_glm_path(problem, multinomial.target, topkfs::LinearFamily::Multinomial,
                                  lasso, grid, control);
    });
    int sweeps = 0, outer = 0;
    bool converged = true;
    for (const auto& point : path) {
      sweeps += point.sweeps;
      outer += point.outer_steps;
      converged = converged && point.converged;
    }
    fmt::print(
        "multinomial grouped-lasso path (100 points, eps 1e-3) {}: {} points, {} outer steps, {} "
        "sweeps, {} non-zero at the end, deviance ratio {:.4f}, converged {}\n",
        format_timing(path_time), path.size(), outer, sweeps, path.back().nonzero(),
        path.back().deviance_ratio, converged);

    if (!args.run.coef_out.empty()) {
      topkfs::bench::write_matrix(args.run.coef_out + "path_mid.txt",
                                  path[path.size() / 2].coef_std);
      topkfs::bench::write_matrix(args.run.coef_out + "path_last.txt", path.back().coef_std);
    }
    return 0;
  } catch (const topkfs::Error& error) {
    fmt::print(stderr, "linear_class_bench: error: {}\n", error.what());
    return 1;
  }
}
