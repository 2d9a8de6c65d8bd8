// The marginal dependence of a column on the target (data/marginal_dependence
// .hpp): quantile bins that keep equal values together, the chi-square
// statistic against a hand count, shapes of dependence a correlation misses,
// weights as copies of rows.
#include "topkfs/data/marginal_dependence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

std::vector<std::int64_t> all_rows(const Dataset& data) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(data.rows()));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
  return rows;
}

Dataset classes_of(const Eigen::MatrixXf& x, const std::vector<std::int32_t>& labels) {
  Dataset data;
  data.features = x;
  data.target_kind = TargetKind::Classes;
  data.labels = labels;
  data.class_names = {"a", "b"};
  data.source = "memory";
  for (Eigen::Index j = 0; j < x.cols(); ++j) data.feature_names.push_back("x" + std::to_string(j));
  return data;
}

// n rows of classes 0, 1, 0, 1, ...; column 0 shifted by 1 in class 1,
// column 1 spread 3 times wider there, the other columns noise (seeded).
Dataset shift_and_spread(int n, int columns, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  Eigen::MatrixXf x(n, columns);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int label = i % 2;
    labels[static_cast<std::size_t>(i)] = label;
    for (int j = 0; j < columns; ++j) x(i, j) = normal(gen);
    x(i, 0) += static_cast<float>(label);
    if (columns > 1) x(i, 1) *= label ? 3.0f : 1.0f;
  }
  return classes_of(x, labels);
}

TEST(QuantileBins, EqualValuesShareABinAndNanHasNone) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 8 values, 4 bins: two a bin; the three 5s all go where the first lands.
  const std::vector<float> values = {7, 1, 5, 5, nan, 2, 5, 9, 3};
  const std::vector<int> bins = quantile_bins(values.data(), 9, 1, 4);
  // Sorted: 1 2 3 5 5 5 7 9 (8 finite): below(1)=0, 2:1, 3:2, 5:3, 7:6, 9:7.
  EXPECT_EQ(bins, (std::vector<int>{3, 0, 1, 1, -1, 0, 1, 3, 1}));
}

TEST(QuantileBins, AColumnOfTwoValuesTakesTwoBins) {
  const std::vector<float> values = {0, 1, 0, 1, 1, 0, 0, 1};
  const std::vector<int> bins = quantile_bins(values.data(), 8, 1, 4);
  EXPECT_EQ(bins, (std::vector<int>{0, 2, 0, 2, 2, 0, 0, 2}));
}

// 8 rows of 2 classes allow 2 bins (5 expected a cell at most). Column 0
// (1..8) and column 1 (1,1,2,2,3,3,4,4) both put the first four rows in bin
// 0 and the last four in bin 1, and the classes are the halves: the table
// [[4,0],[0,4]] against 2 expected in each cell, chi-square 8 on 1 degree of
// freedom. Column 2 holds one of each class in each bin: 0.
TEST(MarginalDependence, MatchesTheChiSquareCountedByHand) {
  Eigen::MatrixXf x(8, 3);
  x.col(0) << 1, 2, 3, 4, 5, 6, 7, 8;
  x.col(1) << 1, 1, 2, 2, 3, 3, 4, 4;
  x.col(2) << 1, 5, 2, 6, 3, 7, 4, 8;
  const Dataset data = classes_of(x, {0, 0, 0, 0, 1, 1, 1, 1});
  const std::vector<double> z = marginal_dependence(data, all_rows(data));
  const double v = 2.0 / 9.0;
  const double expected = (std::cbrt(8.0) - (1 - v)) / std::sqrt(v);
  EXPECT_NEAR(z[0], expected, 1e-12);
  EXPECT_NEAR(z[1], expected, 1e-12);
  EXPECT_NEAR(z[2], (0.0 - (1 - v)) / std::sqrt(v), 1e-12);
}

TEST(MarginalDependence, ConstantColumnAndNoTarget) {
  Eigen::MatrixXf x(6, 1);
  x.col(0).setConstant(3);
  Dataset data = classes_of(x, {0, 1, 0, 1, 0, 1});
  EXPECT_EQ(marginal_dependence(data, all_rows(data))[0], -std::numeric_limits<double>::infinity());
  data.target_kind = TargetKind::None;
  EXPECT_THROW(marginal_dependence(data, all_rows(data)), DataError);
}

// A shift of the mean, a change of spread (same mean) and noise, 400 rows:
// both dependent columns rank far above the noise, the spread one too,
// which a correlation with the class would not see.
TEST(MarginalDependence, SeesAShiftAndAChangeOfSpread) {
  const Dataset data = shift_and_spread(400, 3, 5);
  const std::vector<double> z = marginal_dependence(data, all_rows(data));
  EXPECT_GT(z[0], 5.0);
  EXPECT_GT(z[1], 5.0);
  EXPECT_LT(z[2], 3.0);
}

// A real target that depends on the square of column 0: seen.
TEST(MarginalDependence, RealTargetOfASquare) {
  std::mt19937 gen(2);
  std::normal_distribution<float> normal;
  const int n = 400;
  Dataset data;
  data.features.resize(n, 2);
  data.target_kind = TargetKind::Real;
  data.targets.resize(n, 1);
  for (int i = 0; i < n; ++i) {
    data.features(i, 0) = normal(gen);
    data.features(i, 1) = normal(gen);
    data.targets(i, 0) = data.features(i, 0) * data.features(i, 0) + 0.1 * normal(gen);
  }
  data.feature_names = {"a", "b"};
  const std::vector<double> z = marginal_dependence(data, all_rows(data));
  EXPECT_GT(z[0], 10.0);
  EXPECT_LT(z[1], 3.0);
}

// A weight of 2 counts a row twice, a weight of 0 not at all: the same
// statistic as the data with the row repeated or removed.
TEST(MarginalDependence, WeightsCountRowsAsCopies) {
  const int n = 60;
  Dataset weighted = shift_and_spread(n, 2, 9);
  const Eigen::MatrixXf x = weighted.features;
  const std::vector<std::int32_t> labels = weighted.labels;
  weighted.sample_weight.assign(n, 1.0);
  weighted.sample_weight[3] = 2.0;
  weighted.sample_weight[10] = 0.0;
  // The same rows with row 3 repeated and row 10 left out.
  Eigen::MatrixXf copies(n, 2);
  std::vector<std::int32_t> copy_labels;
  int r = 0;
  for (int i = 0; i < n; ++i) {
    const int times = i == 3 ? 2 : (i == 10 ? 0 : 1);
    for (int t = 0; t < times; ++t) {
      copies.row(r++) = x.row(i);
      copy_labels.push_back(labels[static_cast<std::size_t>(i)]);
    }
  }
  const Dataset repeated = classes_of(copies, copy_labels);
  const std::vector<double> a = marginal_dependence(weighted, all_rows(weighted));
  const std::vector<double> b = marginal_dependence(repeated, all_rows(repeated));
  EXPECT_DOUBLE_EQ(a[0], b[0]);
  EXPECT_DOUBLE_EQ(a[1], b[1]);
}

}  // namespace
}  // namespace topkfs
