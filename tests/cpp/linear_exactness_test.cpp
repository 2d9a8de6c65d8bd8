// With lambda3 = 0 the linear models are scikit-learn's ElasticNet, Lasso and
// Ridge on standardised columns: the coefficients must agree to 1e-6 with the
// values tests/linear/make_golden.py stored (it documents the mapping of the
// penalties), with either update rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../linear/linear_test_support.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs {
namespace {

SolverControl tight(LinearSolver solver) {
  SolverControl control;
  control.tol = 1e-20;
  control.max_sweeps = 100000;
  control.solver = solver;
  return control;
}

class LinearExactness : public ::testing::TestWithParam<LinearSolver> {};

TEST_P(LinearExactness, MatchesScikitLearnElasticNetLassoRidge) {
  const auto golden = test::load_golden("golden.json", "make_golden.py");
  ASSERT_EQ(golden["problems"].size(), 7u);
  for (const auto& case_ : golden["problems"]) {
    SCOPED_TRACE(case_["name"].get<std::string>());
    const Eigen::MatrixXd x = test::matrix_of(case_["x"]);
    const Eigen::VectorXd y = test::vector_of(case_["y"]);
    // The golden features are exact in float32, the precision Dataset keeps.
    ASSERT_EQ((x.cast<float>().cast<double>() - x).cwiseAbs().maxCoeff(), 0.0);
    const Dataset data = test::regression_dataset(x, y);
    LinearProblem problem = test::make_problem(data);
    LinearPenalty penalty;
    penalty.lambda1 = case_["lambda1"].get<double>();
    penalty.lambda2 = case_["lambda2"].get<double>();
    const LinearFit fit = fit_linear(problem, penalty, tight(GetParam()));
    EXPECT_TRUE(fit.converged);
    EXPECT_EQ(fit.solver, GetParam());

    const Eigen::VectorXd expected_std = test::vector_of(case_["coef_std"]);
    EXPECT_LT((fit.coef_std - expected_std).cwiseAbs().maxCoeff(), 1e-6)
        << "ours:    " << fit.coef_std.transpose() << "\nsklearn: " << expected_std.transpose();
    const Eigen::VectorXd expected = test::vector_of(case_["coef"]);
    for (Eigen::Index j = 0; j < expected.size(); ++j) {
      EXPECT_NEAR(fit.coef[j], expected[j], 1e-6 * std::max(1.0, std::abs(expected[j])))
          << "column " << j;
    }
    EXPECT_NEAR(fit.intercept, case_["intercept"].get<double>(), 1e-6);
    EXPECT_LT(test::kkt_violation(problem, penalty, fit.coef_std), 1e-8);
    // Same support as scikit-learn: exact zeros where it has exact zeros.
    for (Eigen::Index j = 0; j < expected_std.size(); ++j) {
      if (std::abs(expected_std[j]) > 1e-6) EXPECT_NE(fit.coef_std[j], 0.0) << "column " << j;
    }
  }
}

TEST_P(LinearExactness, LassoPathMatchesScikitLearnLassoPath) {
  const auto golden = test::load_golden("golden.json", "make_golden.py");
  const auto& case_ = golden["paths"][0];
  const Dataset data =
      test::regression_dataset(test::matrix_of(case_["x"]), test::vector_of(case_["y"]));
  LinearProblem problem = test::make_problem(data);
  const int points = case_["points"].get<int>();
  const auto grid = lambda2_grid(lambda2_max(problem, {}), points, case_["eps"].get<double>());
  const auto& expected_grid = case_["lambda2"];
  ASSERT_EQ(static_cast<int>(grid.size()), points);
  for (int i = 0; i < points; ++i) {
    EXPECT_NEAR(grid[static_cast<std::size_t>(i)], expected_grid[i].get<double>(), 1e-12)
        << "point " << i;
  }
  const auto fits = fit_linear_path(problem, {}, grid, tight(GetParam()));
  ASSERT_EQ(static_cast<int>(fits.size()), points);
  EXPECT_EQ(fits.front().nonzero(), 0);  // lambda2_max zeroes every weight
  for (int i = 0; i < points; ++i) {
    SCOPED_TRACE(fmt::format("path point {}", i));
    const Eigen::VectorXd expected = test::vector_of(case_["coef_std"][i]);
    EXPECT_LT((fits[static_cast<std::size_t>(i)].coef_std - expected).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_TRUE(fits[static_cast<std::size_t>(i)].converged);
  }
}

INSTANTIATE_TEST_SUITE_P(Linear, LinearExactness,
                         ::testing::Values(LinearSolver::Naive, LinearSolver::Covariance),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace topkfs
