#include "topkfs/data/noise_injection.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../linear/linear_test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

// Columns N(5, 2), N(-3, 0.5), N(100, 10), and a copy of the first.
Dataset regression_data(std::int64_t n) {
  Dataset data;
  Rng rng(77);
  data.features.resize(n, 4);
  for (std::int64_t i = 0; i < n; ++i) {
    data.features(i, 0) = static_cast<float>(rng.normal(5.0, 2.0));
    data.features(i, 1) = static_cast<float>(rng.normal(-3.0, 0.5));
    data.features(i, 2) = static_cast<float>(rng.normal(100.0, 10.0));
    data.features(i, 3) = data.features(i, 0);
  }
  data.feature_names = {"a", "b", "c", "a_copy"};
  data.target_kind = TargetKind::Real;
  data.targets = TargetMatrix::Constant(n, 1, 1.5);
  data.target_names = {"y"};
  data.source = "regression.csv";
  return data;
}

struct Moments {
  double mean = 0.0;
  double sd = 0.0;
};

Moments column_moments(const FeatureMatrix& x, Eigen::Index column,
                       const std::vector<std::int64_t>& rows) {
  double sum = 0.0, squares = 0.0;
  for (auto row : rows) sum += x(row, column);
  const double mean = sum / static_cast<double>(rows.size());
  for (auto row : rows) squares += (x(row, column) - mean) * (x(row, column) - mean);
  return {mean, std::sqrt(squares / static_cast<double>(rows.size()))};
}

// The noise column j + m must look like Normal(0.1 mean_j, 0.01 std_j), the
// moments of feature j over `reference` rows.
void expect_noise_law(const NoisyDataset& noisy, std::int64_t m,
                      const std::vector<std::int64_t>& reference) {
  const std::int64_t n = noisy.data.rows();
  for (std::int64_t j = 0; j < m; ++j) {
    const Moments ref = column_moments(noisy.data.features, j, reference);
    const Moments got = column_moments(noisy.data.features, m + j, test::all_rows(n));
    const double want_sd = 0.01 * ref.sd;
    EXPECT_NEAR(got.mean, 0.1 * ref.mean, 5 * want_sd / std::sqrt(static_cast<double>(n)))
        << "column " << j;
    EXPECT_NEAR(got.sd, want_sd, 0.03 * want_sd) << "column " << j;
  }
}

TEST(NoiseInjection, ShapeNamesAndOriginalsUnchanged) {
  const Dataset data = regression_data(500);
  const NoisyDataset noisy = inject_noise_features(data, 1);
  ASSERT_EQ(noisy.data.rows(), 500);
  ASSERT_EQ(noisy.data.cols(), 8);
  EXPECT_EQ(noisy.data.features.leftCols(4), data.features);
  EXPECT_EQ(noisy.data.feature_names,
            (std::vector<std::string>{"a", "b", "c", "a_copy", "noise_a", "noise_b", "noise_c",
                                      "noise_a_copy"}));
  EXPECT_EQ(noisy.informative, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(noisy.data.targets, data.targets);
  EXPECT_EQ(noisy.data.target_kind, TargetKind::Real);
  EXPECT_EQ(noisy.data.source, "regression.csv");
  EXPECT_EQ(noisy.data.notes.size(), 1u);
  EXPECT_NO_THROW(noisy.data.validate());
}

TEST(NoiseInjection, NoiseFollowsTheFormulaOverAllRows) {
  // With every row as reference the law is known exactly; n = 20000 makes the
  // sample moments tight.
  const Dataset data = regression_data(20000);
  const NoisyDataset noisy = inject_noise_features(data, 3, 20000);
  expect_noise_law(noisy, 4, test::all_rows(20000));
}

TEST(NoiseInjection, TwentyReferenceRowsSharedByAllFeatures) {
  const Dataset data = regression_data(20000);
  const NoisyDataset noisy = inject_noise_features(data, 5);
  // The reference rows are the generator's first draws (documented order).
  Rng rng(5);
  const auto reference = rng.sample_without_replacement(20000, 20);
  expect_noise_law(noisy, 4, reference);
  // A duplicated feature gets the same law: the rows are the same for all.
  const Moments first = column_moments(noisy.data.features, 4, test::all_rows(20000));
  const Moments copy = column_moments(noisy.data.features, 7, test::all_rows(20000));
  EXPECT_NEAR(first.mean, copy.mean, 1e-3 * std::abs(first.mean));
  EXPECT_NEAR(first.sd, copy.sd, 0.03 * first.sd);
}

TEST(NoiseInjection, DeterministicBySeed) {
  const Dataset data = regression_data(300);
  EXPECT_EQ(inject_noise_features(data, 9).data.features,
            inject_noise_features(data, 9).data.features);
  EXPECT_NE(inject_noise_features(data, 9).data.features,
            inject_noise_features(data, 10).data.features);
}

TEST(NoiseInjection, FewerRowsThanReferenceSamplesUsesAll) {
  const Dataset data = regression_data(5);
  const NoisyDataset noisy = inject_noise_features(data, 0);
  EXPECT_EQ(noisy.data.cols(), 8);
  EXPECT_NE(noisy.data.notes.back().find("over 5 random samples"), std::string::npos)
      << noisy.data.notes.back();
}

TEST(NoiseInjection, Errors) {
  EXPECT_THROW(inject_noise_features(regression_data(10), 0, 0), OptionError);
  Dataset empty;
  empty.features.resize(0, 3);
  empty.feature_names = {"a", "b", "c"};
  EXPECT_THROW(inject_noise_features(empty, 0), DataError);
}

}  // namespace
}  // namespace topkfs
