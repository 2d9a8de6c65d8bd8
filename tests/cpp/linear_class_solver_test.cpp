// The class families' solver (proximal Newton, glm_model.hpp): optimality
// with the top-k term, lambda2_max, warm-started paths against cold fits, the
// multinomial's centring, recovery of planted features, and fits on unscaled
// columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../linear/linear_test_support.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/linear/glm_model.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {
namespace {

// Rows x standard normals (multiples of 1/256); the first `informative`
// columns carry the classes (random coefficients of magnitude 1 to 2, one set
// per class), the labels drawn from the model's probabilities.
struct ClassData {
  Eigen::MatrixXd x;
  ClassTarget target;
};

ClassData make_class_data(int rows, int columns, int classes, int informative, std::uint64_t seed) {
  Rng rng(seed);
  ClassData data;
  data.x.resize(rows, columns);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < columns; ++j) data.x(i, j) = std::round(rng.normal() * 256) / 256;
  }
  const int outputs = classes == 2 ? 1 : classes;
  Eigen::MatrixXd beta = Eigen::MatrixXd::Zero(columns, outputs);
  for (int j = 0; j < informative; ++j) {
    for (int c = 0; c < outputs; ++c)
      beta(j, c) = (rng.uniform() < 0.5 ? -1 : 1) * rng.uniform(1, 2);
  }
  const Eigen::MatrixXd eta = data.x * beta;
  data.target.classes = classes;
  data.target.labels = test::draw_labels(eta, classes, rng);
  return data;
}

struct Fixture {
  ClassData raw;
  Dataset data;
  LinearProblem problem;
  explicit Fixture(ClassData d, ScalingKind scaling = ScalingKind::Standard)
      : raw(std::move(d)),
        data(test::class_dataset(raw.x, raw.target.labels, raw.target.classes)),
        problem(data.features, test::all_rows(data.rows()), Eigen::VectorXd::Zero(data.rows()), 1,
                scaling) {}
};

LinearFamily family_of(int classes) {
  return classes == 2 ? LinearFamily::Binomial : LinearFamily::Multinomial;
}

SolverControl tight() {
  SolverControl control;
  control.tol = 1e-14;
  control.max_sweeps = 1000000;
  return control;
}

class LinearClassSolver : public ::testing::TestWithParam<int> {};  // the class count

TEST_P(LinearClassSolver, TopKFitsAreOptimalWithTheirSetFixed) {
  const int classes = GetParam();
  Fixture f(make_class_data(200, 25, classes, 4, 3));
  for (const double lambda3 : {1.0, 5.0}) {
    for (const double fraction : {0.3, 0.05}) {
      LinearPenalty penalty;
      penalty.lambda1 = 0.03;
      penalty.lambda3 = lambda3;
      penalty.k = 3;
      penalty.lambda2 =
          fraction * glm_lambda2_max(f.problem, f.raw.target, family_of(classes), penalty);
      SCOPED_TRACE(fmt::format("lambda3 {} lambda2 {}", lambda3, penalty.lambda2));
      const GlmFit fit = fit_glm(f.problem, f.raw.target, family_of(classes), penalty, tight());
      EXPECT_TRUE(fit.converged);
      if (!fit.top_set_settled) continue;  // then S is not the top k of the result
      // The objective converges as the square of the gradient: tol 1e-14
      // leaves it about 1e-7 from zero.
      EXPECT_LT(test::class_kkt_violation(f.problem, f.raw.target, penalty, fit.coef_std,
                                          fit.intercept_std),
                1e-6);
      EXPECT_NEAR(fit.objective,
                  glm_objective(f.problem, f.raw.target, family_of(classes), penalty, fit.coef_std,
                                fit.intercept_std),
                  1e-12);
    }
  }
}

TEST_P(LinearClassSolver, Lambda2MaxIsTheSmallestPenaltyThatZeroesEveryRow) {
  const int classes = GetParam();
  Fixture f(make_class_data(150, 20, classes, 3, 4));
  for (const double lambda3 : {0.0, 2.0}) {
    LinearPenalty penalty;
    penalty.lambda1 = 0.01;
    penalty.lambda3 = lambda3;
    penalty.k = 2;
    const double max = glm_lambda2_max(f.problem, f.raw.target, family_of(classes), penalty);
    penalty.lambda2 = max * (1 + 1e-9);
    EXPECT_EQ(fit_glm(f.problem, f.raw.target, family_of(classes), penalty, tight()).nonzero(), 0);
    penalty.lambda2 = max * 0.98;
    EXPECT_GT(fit_glm(f.problem, f.raw.target, family_of(classes), penalty, tight()).nonzero(), 0);
  }
}

TEST_P(LinearClassSolver, WarmStartedPathMatchesColdFits) {
  const int classes = GetParam();
  Fixture f(make_class_data(120, 30, classes, 4, 5));
  LinearPenalty penalty;
  penalty.lambda1 = 0.02;
  const auto grid =
      lambda2_grid(glm_lambda2_max(f.problem, f.raw.target, family_of(classes), penalty), 8, 0.05);
  const auto path =
      fit_glm_path(f.problem, f.raw.target, family_of(classes), penalty, grid, tight());
  ASSERT_EQ(path.size(), grid.size());
  EXPECT_EQ(path.front().nonzero(), 0);
  for (std::size_t i = 0; i < path.size(); ++i) {
    LinearPenalty point = penalty;
    point.lambda2 = grid[i];
    const GlmFit cold = fit_glm(f.problem, f.raw.target, family_of(classes), point, tight());
    EXPECT_LT((path[i].coef_std - cold.coef_std).cwiseAbs().maxCoeff(), 1e-6) << "point " << i;
    EXPECT_TRUE(path[i].converged);
  }
  for (std::size_t i = 1; i < path.size(); ++i) {
    EXPECT_GE(path[i].deviance_ratio, path[i - 1].deviance_ratio - 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Classes, LinearClassSolver, ::testing::Values(2, 3, 6),
                         [](const auto& info) { return fmt::format("{}classes", info.param); });

TEST(LinearClassSolver, MultinomialRowsAndInterceptsSumToZero) {
  Fixture f(make_class_data(150, 15, 4, 4, 6));
  LinearPenalty penalty;
  penalty.lambda1 = 0.05;
  penalty.lambda2 = 0.01;
  const GlmFit fit = fit_glm(f.problem, f.raw.target, LinearFamily::Multinomial, penalty, tight());
  EXPECT_LT(fit.intercept_std.sum(), 1e-12);
  EXPECT_LT(fit.coef_std.rowwise().sum().cwiseAbs().maxCoeff(), 1e-7);
}

// The penalties act on the centred raw columns: the optimality conditions hold
// there, and the reported coefficients are the fitted ones.
TEST(LinearClassSolver, UnscaledFitsAreOptimalOnTheRawColumns) {
  ClassData raw = make_class_data(150, 12, 3, 3, 7);
  for (Eigen::Index j = 0; j < raw.x.cols(); ++j)
    raw.x.col(j) *= std::ldexp(1.0, static_cast<int>(j % 4));
  Fixture f(raw, ScalingKind::None);
  const Eigen::MatrixXd centred = f.raw.x.rowwise() - f.raw.x.colwise().mean();
  EXPECT_LT((f.problem.x() - centred).cwiseAbs().maxCoeff(), 1e-12);
  LinearPenalty penalty;
  penalty.lambda1 = 0.01;
  penalty.lambda2 = 0.02;
  const GlmFit fit = fit_glm(f.problem, f.raw.target, LinearFamily::Multinomial, penalty, tight());
  EXPECT_LT(
      test::class_kkt_violation(f.problem, f.raw.target, penalty, fit.coef_std, fit.intercept_std),
      1e-7);
  EXPECT_LT((fit.coef - fit.coef_std).cwiseAbs().maxCoeff(), 1e-15);
}

// Separable classes: a lasso's coefficients would grow without bound as
// lambda2 falls; the path stops, as glmnet's, once 99.9% of the deviance is
// explained, every point converged and finite.
TEST(LinearClassSolver, PathStopsWhenTheClassesAreSeparated) {
  ClassData raw = make_class_data(100, 10, 2, 0, 9);
  for (Eigen::Index i = 0; i < raw.x.rows(); ++i) {
    raw.target.labels[static_cast<std::size_t>(i)] = raw.x(i, 0) > 0 ? 1 : 0;
  }
  Fixture f(raw);
  const LinearPenalty lasso;
  const auto grid = lambda2_grid(
      glm_lambda2_max(f.problem, f.raw.target, LinearFamily::Binomial, lasso), 100, 1e-4);
  const auto path =
      fit_glm_path(f.problem, f.raw.target, LinearFamily::Binomial, lasso, grid, SolverControl{});
  ASSERT_LT(path.size(), grid.size());
  EXPECT_GT(path.back().deviance_ratio, 0.999);
  for (std::size_t i = 0; i + 1 < path.size(); ++i) EXPECT_LE(path[i].deviance_ratio, 0.999);
  for (const auto& point : path) {
    EXPECT_TRUE(point.converged);
    EXPECT_TRUE(point.coef_std.allFinite());
  }
}

// elastic-net-top with its defaults finds the planted columns among noise.
TEST(LinearClassSolver, TopKSelectorRecoversPlantedFeatures) {
  for (const int classes : {2, 5}) {
    SCOPED_TRACE(fmt::format("{} classes", classes));
    const ClassData raw = make_class_data(400, 60, classes, 5, 8);
    const Dataset data = test::class_dataset(raw.x, raw.target.labels, classes);
    auto selector = make_linear_selector("elastic-net-top");
    const SelectionResult result = selector->fit(data, test::all_rows(data.rows()), 5, {});
    std::vector<std::int64_t> selected = result.selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(result.options.at("family_used"), classes == 2 ? "binomial" : "multinomial");
    EXPECT_TRUE(result.options.at("converged").get<bool>());
  }
}

}  // namespace
}  // namespace topkfs
