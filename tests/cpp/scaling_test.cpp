#include "topkfs/data/scaling.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

// 40 x 5: columns of very different location and spread, the last constant.
FeatureMatrix random_matrix() {
  Rng rng(2024);
  FeatureMatrix x(40, 5);
  const double means[] = {0.0, 100.0, -5.0, 0.001, 7.0};
  const double sds[] = {1.0, 20.0, 0.1, 0.0005, 0.0};
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      x(i, j) = static_cast<float>(rng.normal(means[j], sds[j]));
    }
  }
  return x;
}

std::string to_csv(const FeatureMatrix& x) {
  std::string text;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      // 9 significant digits give the float back exactly.
      text += fmt::format("{}{:.9g}", j ? "," : "", x(i, j));
    }
    text += "\n";
  }
  return text;
}

constexpr const char* kSklearnScript = R"(
import sys
import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler
x = np.loadtxt(sys.argv[1], delimiter=",", dtype=np.float64, ndmin=2)
rows = [int(r) for r in sys.argv[3].split(",")]
scaler = StandardScaler() if sys.argv[2] == "standard" else MinMaxScaler()
scaler.fit(x[rows])
for v in scaler.transform(x).ravel():
    print(repr(float(v)))
)";

// Fits on the even rows in C++ and in scikit-learn, applies to all rows, and
// compares every scaled value.
void expect_agrees_with_sklearn(ScalingKind kind) {
  if (!test::path_exists(TOPKFS_PYTHON)) GTEST_SKIP() << TOPKFS_PYTHON << " is absent";
  const FeatureMatrix x = random_matrix();
  std::vector<std::int64_t> rows;
  std::string row_list;
  for (std::int64_t i = 0; i < x.rows(); i += 2) {
    rows.push_back(i);
    row_list += (row_list.empty() ? "" : ",") + std::to_string(i);
  }
  const std::string csv = test::write_temp_file("scaling_matrix.csv", to_csv(x));
  const std::string script = test::write_temp_file("scaling_sklearn.py", kSklearnScript);
  const auto result = test::run_command(
      fmt::format("{} {} {} {} {}", TOPKFS_PYTHON, script, csv, to_string(kind), row_list));
  ASSERT_EQ(result.exit_code, 0) << result.err;

  FeatureMatrix scaled = x;
  fit_scaler(x, rows, kind).apply(scaled);
  std::istringstream expected(result.out);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      double want = 0.0;
      ASSERT_TRUE(expected >> want) << "scikit-learn printed too few values";
      EXPECT_NEAR(scaled(i, j), want, 1e-6 * std::max(1.0, std::abs(want)))
          << "row " << i << " column " << j;
    }
  }
  double extra = 0.0;
  EXPECT_FALSE(expected >> extra) << "scikit-learn printed too many values";
}

TEST(Scaling, StandardAgreesWithSklearn) { expect_agrees_with_sklearn(ScalingKind::Standard); }

TEST(Scaling, MinMaxAgreesWithSklearn) { expect_agrees_with_sklearn(ScalingKind::MinMax); }

TEST(Scaling, StandardIsPopulationStd) {
  FeatureMatrix x(4, 1);
  x << 1, 2, 3, 4;
  const Scaler scaler = fit_scaler(x, {}, ScalingKind::Standard);
  EXPECT_DOUBLE_EQ(scaler.offset[0], 2.5);
  EXPECT_DOUBLE_EQ(scaler.scale[0], std::sqrt(1.25));  // ddof = 0
}

TEST(Scaling, ConstantColumnsBecomeZero) {
  FeatureMatrix x(3, 2);
  x << 5, 1, 5, 2, 5, 3;
  for (auto kind : {ScalingKind::Standard, ScalingKind::MinMax}) {
    const Scaler scaler = fit_scaler(x, {}, kind);
    EXPECT_EQ(scaler.scale[0], 1.0) << to_string(kind);
    FeatureMatrix scaled = x;
    scaler.apply(scaled);
    for (Eigen::Index i = 0; i < 3; ++i) EXPECT_EQ(scaled(i, 0), 0.0f) << to_string(kind);
  }
  FeatureMatrix scaled = x;
  fit_scaler(x, {}, ScalingKind::MinMax).apply(scaled);
  EXPECT_EQ(scaled(0, 1), 0.0f);
  EXPECT_EQ(scaled(1, 1), 0.5f);
  EXPECT_EQ(scaled(2, 1), 1.0f);
}

TEST(Scaling, FitsOnTheTrainingRowsOnly) {
  // Train rows 0..9 hold 0..9; the test rows hold 1000 and up. Statistics over
  // all rows would be dominated by the test rows.
  FeatureMatrix x(14, 1);
  std::vector<std::int64_t> train;
  for (int i = 0; i < 10; ++i) {
    x(i, 0) = static_cast<float>(i);
    train.push_back(i);
  }
  for (int i = 10; i < 14; ++i) x(i, 0) = static_cast<float>(1000 + i);

  const Scaler standard = fit_scaler(x, train, ScalingKind::Standard);
  EXPECT_DOUBLE_EQ(standard.offset[0], 4.5);
  EXPECT_DOUBLE_EQ(standard.scale[0], std::sqrt(8.25));
  FeatureMatrix scaled = x;
  standard.apply(scaled);
  EXPECT_NEAR(scaled.topRows(10).mean(), 0.0, 1e-6);
  EXPECT_NEAR(scaled(13, 0), (1013 - 4.5) / std::sqrt(8.25), 1e-3);

  const Scaler min_max = fit_scaler(x, train, ScalingKind::MinMax);
  scaled = x;
  min_max.apply(scaled);
  EXPECT_EQ(scaled(0, 0), 0.0f);
  EXPECT_EQ(scaled(9, 0), 1.0f);
  EXPECT_GT(scaled(10, 0), 100.0f);  // test rows may leave [0, 1]
}

TEST(Scaling, NoneLeavesTheData) {
  FeatureMatrix x = random_matrix();
  const FeatureMatrix original = x;
  fit_scaler(x, {}, ScalingKind::None).apply(x);
  EXPECT_EQ(x, original);
}

TEST(Scaling, Errors) {
  FeatureMatrix x(3, 2);
  x.setZero();
  EXPECT_THROW(fit_scaler(x, {3}, ScalingKind::Standard), OptionError);
  EXPECT_THROW(fit_scaler(FeatureMatrix(0, 2), {}, ScalingKind::Standard), DataError);
  FeatureMatrix wider(3, 4);
  EXPECT_THROW(fit_scaler(x, {}, ScalingKind::MinMax).apply(wider), DataError);
}

TEST(Scaling, ParseNames) {
  EXPECT_EQ(parse_scaling("standard"), ScalingKind::Standard);
  EXPECT_EQ(parse_scaling("MinMax"), ScalingKind::MinMax);
  EXPECT_EQ(parse_scaling("none"), ScalingKind::None);
  for (auto kind : {ScalingKind::None, ScalingKind::Standard, ScalingKind::MinMax}) {
    EXPECT_EQ(parse_scaling(to_string(kind)), kind);
  }
  try {
    parse_scaling("zscore");
    FAIL() << "no exception";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("'zscore'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("none, standard, minmax"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace topkfs
