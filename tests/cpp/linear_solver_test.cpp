// The coordinate-descent solver of the linear models: optimality (KKT)
// certificates computed from scratch, the ridge closed form, both update
// rules agreeing, warm starts, the lambda2 path, the top-k set.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "../linear/linear_test_support.hpp"
#include "busy_cores.hpp"
#include "topkfs/core/cpu_share.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs {
namespace {

// Planted support of 6 columns, 6 decoys at correlation 0.9, offsets and
// scales so that standardising matters.
Dataset planted_regression(std::int64_t samples, std::int64_t features, std::uint64_t seed = 3) {
  SyntheticOptions options;
  options.samples = samples;
  options.features = features;
  options.informative = 6;
  options.correlated_decoys = 6;
  options.target = SyntheticOptions::Target::Real;
  options.noise = 0.3;
  options.seed = seed;
  Dataset data = make_synthetic(options).data;
  for (Eigen::Index j = 0; j < data.features.cols(); ++j) {
    data.features.col(j) = data.features.col(j).array() * static_cast<float>(1 + j % 5) +
                           static_cast<float>(j % 7) - 3.0f;
  }
  data.targets.array() += 10.0;
  return data;
}

SolverControl precise(LinearSolver solver) {
  SolverControl control;
  control.tol = 1e-20;
  control.max_sweeps = 100000;
  control.solver = solver;
  return control;
}

LinearPenalty penalty(double lambda1, double lambda2, double lambda3 = 0.0, int k = 0) {
  LinearPenalty p;
  p.lambda1 = lambda1;
  p.lambda2 = lambda2;
  p.lambda3 = lambda3;
  p.k = k;
  return p;
}

class LinearSolverBothRules : public ::testing::TestWithParam<LinearSolver> {};

TEST_P(LinearSolverBothRules, PlainModelsSatisfyKkt) {
  for (const auto& [rows, cols] : {std::pair{300, 40}, std::pair{40, 120}}) {
    const Dataset data = planted_regression(rows, cols);
    LinearProblem problem = test::make_problem(data);
    const double top = lambda2_max(problem, {});
    for (const auto& p : {penalty(0.0, 0.1 * top), penalty(0.5, 0.05 * top), penalty(0.2, 0.0),
                          penalty(0.01, 0.01 * top)}) {
      SCOPED_TRACE(
          fmt::format("{} x {}, lambda1 {}, lambda2 {}", rows, cols, p.lambda1, p.lambda2));
      const LinearFit fit = fit_linear(problem, p, precise(GetParam()));
      EXPECT_TRUE(fit.converged);
      EXPECT_LT(test::kkt_violation(problem, p, fit.coef_std), 1e-7);
      EXPECT_NEAR(fit.objective, linear_objective(problem, p, fit.coef_std), 1e-10);
    }
  }
}

TEST_P(LinearSolverBothRules, TopKModelsReachAFixedPointOfTheirSet) {
  const Dataset data = planted_regression(300, 40);
  LinearProblem problem = test::make_problem(data);
  int settled = 0;
  for (const int k : {3, 6, 12}) {
    for (const double lambda3 : {0.5, 1.0, 5.0}) {
      const auto p = penalty(0.05, 0.02 * lambda2_max(problem, {}), lambda3, k);
      SCOPED_TRACE(fmt::format("k {}, lambda3 {}", k, lambda3));
      const LinearFit fit = fit_linear(problem, p, precise(GetParam()));
      EXPECT_TRUE(fit.converged);
      EXPECT_GE(fit.nonzero(), k);
      EXPECT_NEAR(fit.objective, linear_objective(problem, p, fit.coef_std), 1e-9);
      if (!fit.top_set_settled) continue;
      ++settled;
      EXPECT_LT(test::kkt_violation(problem, p, fit.coef_std), 1e-7);
    }
  }
  EXPECT_GE(settled, 8);  // cycling is the exception, not the rule
}

TEST_P(LinearSolverBothRules, RidgeEqualsItsClosedForm) {
  const Dataset data = planted_regression(200, 30);
  LinearProblem problem = test::make_problem(data);
  const double lambda1 = 0.3;
  const LinearFit fit = fit_linear(problem, penalty(lambda1, 0.0), precise(GetParam()));
  const double n = static_cast<double>(problem.rows());
  Eigen::MatrixXd system = problem.x().transpose() * problem.x() / n;
  system.diagonal().array() += lambda1;
  const Eigen::VectorXd expected = system.ldlt().solve(problem.x().transpose() * problem.y() / n);
  EXPECT_LT((fit.coef_std - expected).cwiseAbs().maxCoeff(), 1e-8);
}

TEST_P(LinearSolverBothRules, WarmStartGivesTheSameSolutionInFewerSweeps) {
  const Dataset data = planted_regression(300, 40);
  LinearProblem problem = test::make_problem(data);
  const double top = lambda2_max(problem, {});
  const auto near = penalty(0.1, 0.031 * top);
  const auto target = penalty(0.1, 0.03 * top);
  const LinearFit previous = fit_linear(problem, near, precise(GetParam()));
  const LinearFit warm = fit_linear(problem, target, precise(GetParam()), &previous);
  const LinearFit cold = fit_linear(problem, target, precise(GetParam()));
  EXPECT_LT((warm.coef_std - cold.coef_std).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LT(warm.sweeps, cold.sweeps);
}

TEST_P(LinearSolverBothRules, PathStartsAtZeroAndWarmStartsDownward) {
  const Dataset data = planted_regression(200, 60);
  LinearProblem problem = test::make_problem(data);
  const auto base = penalty(0.05, 0.0);
  const double top = lambda2_max(problem, base);
  const auto grid = lambda2_grid(top, 30, 1e-3);
  ASSERT_EQ(grid.size(), 30u);
  EXPECT_DOUBLE_EQ(grid.front(), top);
  EXPECT_NEAR(grid.back(), 1e-3 * top, 1e-15 * top);
  for (std::size_t i = 1; i < grid.size(); ++i) EXPECT_LT(grid[i], grid[i - 1]);

  const auto fits = fit_linear_path(problem, base, grid, precise(GetParam()));
  ASSERT_EQ(fits.size(), grid.size());
  EXPECT_EQ(fits.front().nonzero(), 0);  // the smallest lambda2 that zeroes every weight
  EXPECT_GT(fits[1].nonzero(), 0);
  EXPECT_GT(fits.back().nonzero(), 30);
  for (const auto& fit : fits) {
    EXPECT_TRUE(fit.converged);
    EXPECT_LT(test::kkt_violation(problem, fit.penalty, fit.coef_std), 1e-7);
  }
  // A just-above-max lambda2 keeps everything at zero; just below it does not.
  EXPECT_EQ(fit_linear(problem, penalty(0.05, top * (1 + 1e-9)), precise(GetParam())).nonzero(), 0);
  EXPECT_GT(fit_linear(problem, penalty(0.05, top * 0.99), precise(GetParam())).nonzero(), 0);

  const auto stopped = fit_linear_path(problem, base, grid, precise(GetParam()), 5);
  ASSERT_GE(stopped.size(), 2u);
  EXPECT_GE(stopped.back().nonzero(), 5);
  EXPECT_LT(stopped[stopped.size() - 2].nonzero(), 5);
}

TEST_P(LinearSolverBothRules, TopKLambdaMaxZeroesEveryWeight) {
  const Dataset data = planted_regression(200, 30);
  LinearProblem problem = test::make_problem(data);
  const auto p = penalty(0.05, 0.0, 2.0, 4);
  const double top = lambda2_max(problem, p);
  EXPECT_NEAR(top, 3.0 * lambda2_max(problem, {}), 1e-12);
  auto at = p;
  at.lambda2 = top * (1 + 1e-9);
  EXPECT_EQ(fit_linear(problem, at, precise(GetParam())).nonzero(), 0);
  const auto path = fit_linear_path(problem, p, lambda2_grid(top, 40, 1e-2), precise(GetParam()));
  EXPECT_EQ(path.front().nonzero(), 0);
  EXPECT_GT(path[1].nonzero(), 0);
  EXPECT_GE(path.back().nonzero(), 4);
}

INSTANTIATE_TEST_SUITE_P(Linear, LinearSolverBothRules,
                         ::testing::Values(LinearSolver::Naive, LinearSolver::Covariance),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(LinearSolver, NaiveAndCovarianceUpdatesAgree) {
  const Dataset data = planted_regression(400, 50);
  LinearProblem problem = test::make_problem(data);
  const double top = lambda2_max(problem, {});
  for (const auto& p : {penalty(0.1, 0.02 * top), penalty(0.1, 0.02 * top, 1.0, 6)}) {
    const LinearFit naive = fit_linear(problem, p, precise(LinearSolver::Naive));
    const LinearFit covariance = fit_linear(problem, p, precise(LinearSolver::Covariance));
    EXPECT_LT((naive.coef_std - covariance.coef_std).cwiseAbs().maxCoeff(), 1e-7);
    EXPECT_EQ(top_k_columns(naive.coef_std, 6), top_k_columns(covariance.coef_std, 6));
  }
  // Auto: covariance when rows >= 2 x columns.
  EXPECT_EQ(fit_linear(problem, penalty(0.1, 0.1 * top), {}).solver, LinearSolver::Covariance);
  const Dataset wide = planted_regression(60, 50);
  LinearProblem wide_problem = test::make_problem(wide);
  EXPECT_EQ(fit_linear(wide_problem, penalty(0.1, 0.1), {}).solver, LinearSolver::Naive);
}

TEST(LinearSolver, PlainObjectiveNeverIncreasesOverSweeps) {
  const Dataset data = planted_regression(150, 80);
  LinearProblem problem = test::make_problem(data);
  const auto p = penalty(0.05, 0.01 * lambda2_max(problem, {}));
  const LinearFit fit = fit_linear(problem, p, precise(LinearSolver::Naive));
  ASSERT_GT(fit.history.size(), 3u);
  for (std::size_t i = 1; i < fit.history.size(); ++i) {
    EXPECT_LE(fit.history[i].loss, fit.history[i - 1].loss * (1 + 1e-12)) << "sweep " << i + 1;
  }
  EXPECT_EQ(fit.sweeps, static_cast<int>(fit.history.size()));
}

TEST(LinearSolver, StandardisesWithPopulationStatisticsAndReportsOriginalScale) {
  Dataset data = planted_regression(120, 16);
  data.features.col(4).setConstant(7.5f);  // a constant column
  LinearProblem problem = test::make_problem(data);
  const Eigen::MatrixXd raw = data.features.cast<double>();
  for (Eigen::Index j = 0; j < raw.cols(); ++j) {
    const double mean = raw.col(j).mean();
    const double sd = std::sqrt((raw.col(j).array() - mean).square().mean());
    EXPECT_NEAR(problem.column_mean()[j], mean, 1e-12 * std::max(1.0, std::abs(mean)));
    if (j == 4) {
      EXPECT_EQ(problem.column_scale()[j], 0.0);
      EXPECT_EQ(problem.column_norm()[j], 0.0);
      continue;
    }
    EXPECT_NEAR(problem.column_scale()[j], sd, 1e-12 * sd);
    EXPECT_NEAR(problem.column_norm()[j], 1.0, 1e-12);
    EXPECT_NEAR(problem.x().col(j).mean(), 0.0, 1e-12);
  }
  EXPECT_EQ(problem.constant_columns(), 1);
  EXPECT_NEAR(problem.target_mean(), data.targets.col(0).mean(), 1e-12);

  const LinearFit fit = fit_linear(problem, penalty(0.0, 0.001), precise(LinearSolver::Auto));
  EXPECT_EQ(fit.coef_std[4], 0.0);
  EXPECT_EQ(fit.coef[4], 0.0);
  // The original-scale model predicts what the standardised one does.
  const Eigen::VectorXd original =
      raw * fit.coef + Eigen::VectorXd::Constant(raw.rows(), fit.intercept);
  const Eigen::VectorXd standardised =
      problem.x() * fit.coef_std + Eigen::VectorXd::Constant(raw.rows(), problem.target_mean());
  EXPECT_LT((original - standardised).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(LinearSolver, SameResultWithOneOrTwoThreads) {
  const Dataset data = planted_regression(500, 150);
  LinearProblem one = test::make_problem(data, 1);
  LinearProblem two = test::make_problem(data, 2);
  EXPECT_EQ(two.threads(), 2);
  // Standardising sums every column in row order whatever the thread count.
  EXPECT_EQ((one.x() - two.x()).cwiseAbs().maxCoeff(), 0.0);
  const auto p = penalty(0.03, 0.0, 1.0, 6);
  const auto grid = lambda2_grid(lambda2_max(one, p), 50, 1e-3);
  const auto a = fit_linear_path(one, p, grid, {});
  const auto b = fit_linear_path(two, p, grid, {});
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(top_k_columns(a.back().coef_std, 6), top_k_columns(b.back().coef_std, 6));
  EXPECT_LT((a.back().coef_std - b.back().coef_std).cwiseAbs().maxCoeff(), 1e-9);
}

// The default takes the cores other work leaves free: OpenBLAS's threads
// meet at every product, and one without a core holds the product up.
TEST(LinearSolver, TheDefaultThreadsLeaveBusyCoresAlone) {
  const Dataset data = planted_regression(50, 12);
  const int cores = usable_cores();
  int by_default = 0, given = 0, started = 0;
  {
    const test::BusyCores busy(cores);
    started = busy.started();
    by_default = test::make_problem(data, 0).threads();
    given = test::make_problem(data, cores).threads();
  }
  ASSERT_EQ(started, cores) << "fork failed";
  EXPECT_EQ(by_default, 1);
  EXPECT_EQ(given, cores);
}

TEST(LinearSolver, RefusesBadPenaltiesAndControls) {
  const Dataset data = planted_regression(50, 12);
  LinearProblem problem = test::make_problem(data);
  EXPECT_THROW(fit_linear(problem, penalty(-1.0, 0.1), {}), OptionError);
  EXPECT_THROW(fit_linear(problem, penalty(0.0, 0.1, 1.0, 0), {}), OptionError);   // k missing
  EXPECT_THROW(fit_linear(problem, penalty(0.0, 0.1, 1.0, 13), {}), OptionError);  // k > m
  SolverControl bad;
  bad.max_sweeps = 0;
  EXPECT_THROW(fit_linear(problem, penalty(0.0, 0.1), bad), OptionError);
  EXPECT_THROW(lambda2_grid(1.0, 0, 1e-3), OptionError);
  EXPECT_THROW(lambda2_grid(1.0, 10, 1.5), OptionError);
  EXPECT_THROW(parse_linear_solver("gram"), OptionError);
  try {
    fit_linear(problem, penalty(0.0, 0.1, 1.0, 13), {});
  } catch (const OptionError& error) {
    EXPECT_NE(std::string(error.what()).find("12 feature columns"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace topkfs
