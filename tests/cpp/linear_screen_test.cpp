// The marginal screen of the linear models' ranking: the score statistics
// against their definitions computed from scratch, the chi-square tail
// against table values, and the order it gives the selection, including
// what it costs (a column that helps only jointly ranks after the screened).
#include "topkfs/linear/marginal_screen.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <random>
#include <string>

#include "../linear/linear_test_support.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {
namespace {

Eigen::MatrixXd normal_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) x(i, j) = normal(engine);
  return x;
}

TEST(LinearScreen, ChiSquareTailMatchesTableValues) {
  // The 5% and 1% points of the chi-square distribution.
  EXPECT_NEAR(chi_square_survival(3.841459, 1), 0.05, 1e-7);
  EXPECT_NEAR(chi_square_survival(5.991465, 2), 0.05, 1e-7);
  EXPECT_NEAR(chi_square_survival(7.814728, 3), 0.05, 1e-7);
  EXPECT_NEAR(chi_square_survival(16.918978, 9), 0.05, 1e-7);
  EXPECT_NEAR(chi_square_survival(6.634897, 1), 0.01, 1e-7);
  EXPECT_NEAR(chi_square_survival(23.209251, 10), 0.01, 1e-7);
  EXPECT_EQ(chi_square_survival(0.0, 3), 1.0);
  EXPECT_LT(chi_square_survival(200.0, 1), 1e-40);
}

TEST(LinearScreen, GaussianStatisticIsNTimesTheSquaredCorrelation) {
  const Eigen::Index n = 150;
  Eigen::MatrixXd x = normal_matrix(n, 5, 3);
  x.col(4).setConstant(2.0);
  const Eigen::VectorXd y = 0.8 * x.col(0) - 0.3 * x.col(2) + normal_matrix(n, 1, 4).col(0);
  const Dataset data = test::regression_dataset(x, y);
  LinearProblem problem(data.features, test::all_rows(n), y);
  const Eigen::VectorXd statistics = marginal_score_statistics(problem);
  // The columns as stored (float), as the problem sees them.
  const Eigen::MatrixXd stored = data.features.cast<double>();
  const Eigen::VectorXd yc = y.array() - y.mean();
  for (Eigen::Index j = 0; j < 4; ++j) {
    const Eigen::VectorXd xc = stored.col(j).array() - stored.col(j).mean();
    const double r = xc.dot(yc) / std::sqrt(xc.squaredNorm() * yc.squaredNorm());
    EXPECT_NEAR(statistics[j], static_cast<double>(n) * r * r, 1e-8 * n) << "column " << j;
  }
  EXPECT_EQ(statistics[4], 0.0);  // constant column
}

TEST(LinearScreen, ClassStatisticIsNTimesTheBetweenClassShareOfVariance) {
  const Eigen::Index n = 120;
  const int classes = 3;
  Eigen::MatrixXd x = normal_matrix(n, 3, 5);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % classes);
    x(i, 0) += 0.7 * (i % classes);
  }
  const Dataset data = test::class_dataset(x, labels, classes);
  LinearProblem problem(data.features, test::all_rows(n), Eigen::VectorXd::Zero(n));
  ClassTarget target{labels, classes};
  const Eigen::VectorXd statistics = marginal_score_statistics(problem, target);
  const Eigen::MatrixXd stored = data.features.cast<double>();
  for (Eigen::Index j = 0; j < 3; ++j) {
    const double mean = stored.col(j).mean();
    double total = 0.0, between = 0.0;
    for (int c = 0; c < classes; ++c) {
      double sum = 0.0, count = 0.0;
      for (Eigen::Index i = 0; i < n; ++i) {
        if (labels[static_cast<std::size_t>(i)] != c) continue;
        sum += stored(i, j);
        count += 1.0;
      }
      between += count * (sum / count - mean) * (sum / count - mean);
    }
    for (Eigen::Index i = 0; i < n; ++i) total += (stored(i, j) - mean) * (stored(i, j) - mean);
    EXPECT_NEAR(statistics[j], static_cast<double>(n) * between / total, 1e-8 * n)
        << "column " << j;
  }
  EXPECT_LT(chi_square_survival(statistics[0], classes - 1), 1e-6);  // the planted column
}

// y = x0 - x1 + 0.3 x2 + noise, with x1 a component of x0: x1 has a large
// weight in the joint fit but no association with y on its own (a
// suppressor), x3 is noise. The screen ranks x1 after x2; without it the
// ranking is by weight.
TEST(LinearScreen, ScreenedColumnsRankFirstAndTheScreenCanBeTurnedOff) {
  const Eigen::Index n = 400;
  const Eigen::MatrixXd z = normal_matrix(n, 5, 7);
  Eigen::MatrixXd x(n, 4);
  x.col(0) = z.col(0) + z.col(1);
  x.col(1) = z.col(0);
  x.col(2) = z.col(2);
  x.col(3) = z.col(3);
  const Eigen::VectorXd y = x.col(0) - x.col(1) + 0.3 * x.col(2) + 0.2 * z.col(4);
  const Dataset data = test::regression_dataset(x, y);
  for (const char* level : {"0.05", "0"}) {
    SCOPED_TRACE(level);
    auto selector = make_linear_selector("elastic-net-top");
    selector->set_option("screen-level", level);
    const SelectionResult result = selector->fit(data, test::all_rows(n), 2, {});
    std::vector<std::int64_t> selected = result.selected;
    std::sort(selected.begin(), selected.end());
    if (std::string(level) == "0") {
      EXPECT_EQ(selected, (std::vector<std::int64_t>{0, 1}));
    } else {
      EXPECT_EQ(selected, (std::vector<std::int64_t>{0, 2}));
      EXPECT_EQ(result.ranking[2], 1);  // first of those that fail, by weight
    }
  }
}

}  // namespace
}  // namespace topkfs
