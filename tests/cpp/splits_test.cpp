#include "topkfs/data/splits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

// Labels with the given class sizes, interleaved over the rows.
Dataset labelled(const std::vector<int>& sizes) {
  Dataset data;
  data.target_kind = TargetKind::Classes;
  std::vector<int> left = sizes;
  bool any = true;
  while (any) {
    any = false;
    for (std::size_t c = 0; c < left.size(); ++c) {
      if (left[c] == 0) continue;
      --left[c];
      data.labels.push_back(static_cast<std::int32_t>(c));
      any = true;
    }
  }
  for (std::size_t c = 0; c < sizes.size(); ++c) data.class_names.push_back(std::to_string(c));
  data.features = FeatureMatrix::Zero(static_cast<Eigen::Index>(data.labels.size()), 1);
  data.feature_names = {"x"};
  data.source = "labelled.csv";
  return data;
}

Dataset real_valued(std::int64_t n) {
  Dataset data;
  data.features = FeatureMatrix::Zero(n, 1);
  data.feature_names = {"x"};
  data.target_kind = TargetKind::Real;
  data.targets = TargetMatrix::Zero(n, 1);
  data.source = "real.csv";
  return data;
}

// Both parts sorted, disjoint, and together exactly `rows` (or 0..n-1).
void expect_partition(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                      std::vector<std::int64_t> rows) {
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
  std::vector<std::int64_t> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::sort(both.begin(), both.end());
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(both, rows);  // covering, and with equal sizes also disjoint
}

std::vector<std::int64_t> count_labels(const Dataset& data, const std::vector<std::int64_t>& rows) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(data.num_classes()), 0);
  for (auto row : rows)
    ++counts[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(row)])];
  return counts;
}

TEST(Splits, RandomSplitSizesLikeSklearn) {
  const Split split = random_split(101, 0.2, 5);
  EXPECT_EQ(split.test.size(), 21u);  // ceil(20.2)
  EXPECT_EQ(split.train.size(), 80u);
  expect_partition(split.train, split.test, test::iota_rows(101));
  // 0.55 * 100 is 55.00000000000001 in double; scikit-learn's ceil makes it 56
  // (train_test_split(range(100), test_size=0.55) has 56 test samples).
  EXPECT_EQ(random_split(100, 0.55, 0).test.size(), 56u);
  EXPECT_EQ(random_split(10, 0.5, 0).test.size(), 5u);
}

TEST(Splits, DeterministicBySeed) {
  EXPECT_EQ(random_split(1000, 0.25, 3).test, random_split(1000, 0.25, 3).test);
  EXPECT_NE(random_split(1000, 0.25, 3).test, random_split(1000, 0.25, 4).test);
  const Dataset data = labelled({300, 200, 100});
  EXPECT_EQ(stratified_split(data, 0.2, 9).test, stratified_split(data, 0.2, 9).test);
  EXPECT_NE(stratified_split(data, 0.2, 9).test, stratified_split(data, 0.2, 10).test);
}

TEST(Splits, StratifiedProportionsWithinOneSample) {
  const Dataset data = labelled({500, 260, 131, 57, 9, 3, 2});
  const std::int64_t n = data.rows();
  for (double fraction : {0.1, 0.2, 0.33, 0.5, 0.8}) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const Split split = stratified_split(data, fraction, seed);
      expect_partition(split.train, split.test, test::iota_rows(n));
      ASSERT_EQ(static_cast<std::int64_t>(split.test.size()),
                static_cast<std::int64_t>(std::ceil(fraction * static_cast<double>(n))));
      const auto total = class_counts(data);
      const auto in_test = count_labels(data, split.test);
      for (std::size_t c = 0; c < total.size(); ++c) {
        const double share = static_cast<double>(total[c]) *
                             static_cast<double>(split.test.size()) / static_cast<double>(n);
        EXPECT_LT(std::abs(static_cast<double>(in_test[c]) - share), 1.0)
            << "class " << c << " fraction " << fraction << " seed " << seed;
        EXPECT_GE(in_test[c], 1) << "class " << c << " missing from the test part";
        EXPECT_LE(in_test[c], total[c] - 1) << "class " << c << " missing from the train part";
      }
    }
  }
}

TEST(Splits, SmallClassesReachBothParts) {
  // Shares of the two-sample classes in the test part are 0.2: without the
  // adjustment they would have no test sample; the single sample is kept for
  // training.
  const Dataset data = labelled({40, 2, 2, 1});
  const Split split = stratified_split(data, 0.1, 1);
  ASSERT_EQ(split.test.size(), 5u);
  const auto in_test = count_labels(data, split.test);
  EXPECT_EQ(in_test[1], 1);
  EXPECT_EQ(in_test[2], 1);
  EXPECT_EQ(in_test[3], 0);
  EXPECT_EQ(in_test[0], 3);
}

TEST(Splits, MoreClassesThanTestSlotsStillExact) {
  // 10 classes of 3, 3 test rows: not every class can be tested; no error.
  std::vector<int> sizes(10, 3);
  const Dataset data = labelled(sizes);
  const Split split = stratified_split(data, 0.1, 2);
  EXPECT_EQ(split.test.size(), 3u);
  expect_partition(split.train, split.test, test::iota_rows(30));
  for (auto c : count_labels(data, split.train)) EXPECT_GE(c, 2);
}

TEST(Splits, RealTargetsGetAPlainShuffledSplit) {
  const Dataset data = real_valued(50);
  const Split split = stratified_split(data, 0.3, 4);
  EXPECT_EQ(split.test.size(), 15u);
  expect_partition(split.train, split.test, test::iota_rows(50));
  EXPECT_EQ(split.test, random_split(50, 0.3, 4).test);
}

TEST(Splits, FractionsOutsideTheOpenIntervalAreOptionErrors) {
  const Dataset data = labelled({10, 10});
  for (double bad : {0.0, 1.0, -0.2, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW(random_split(10, bad, 0), OptionError) << bad;
    EXPECT_THROW(stratified_split(data, bad, 0), OptionError) << bad;
    EXPECT_THROW(resolve_split(data, SplitMode::Random, bad, 0), OptionError) << bad;
    EXPECT_THROW(train_validation_split(data, {0, 1, 2, 3}, bad, 0), OptionError) << bad;
  }
}

TEST(Splits, TooFewSamplesIsADataErrorWithTheNumbers) {
  try {
    stratified_split(real_valued(1), 0.2, 0);
    FAIL() << "no exception";
  } catch (const DataError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("real.csv: 1 samples"), std::string::npos) << message;
    EXPECT_NE(message.find("0 training"), std::string::npos) << message;
  }
  EXPECT_THROW(random_split(0, 0.5, 0), DataError);
  EXPECT_THROW(random_split(3, 0.9, 0), DataError);  // ceil(2.7) = 3 test, 0 train
}

TEST(Splits, TrainValidationSplitOfGivenRows) {
  Dataset data = labelled({100, 60, 40});
  Split predefined;
  for (std::int64_t i = 0; i < data.rows(); ++i) {
    (i % 4 == 3 ? predefined.test : predefined.train).push_back(i);
  }
  const TrainValTest parts = train_validation_split(data, predefined.train, 0.2, 8);
  EXPECT_EQ(parts.test, predefined.test);
  expect_partition(parts.train, parts.validation, predefined.train);
  EXPECT_EQ(parts.validation.size(), 30u);  // ceil(0.2 * 150)
  const auto given = count_labels(data, predefined.train);
  const auto in_validation = count_labels(data, parts.validation);
  for (std::size_t c = 0; c < given.size(); ++c) {
    EXPECT_LT(std::abs(static_cast<double>(in_validation[c]) - 0.2 * static_cast<double>(given[c])),
              1.0);
  }
  EXPECT_EQ(train_validation_split(data, predefined.train, 0.2, 8).validation, parts.validation);
  EXPECT_THROW(train_validation_split(data, {0, 1, 1}, 0.2, 0), OptionError);
  EXPECT_THROW(train_validation_split(data, {0, 200}, 0.2, 0), OptionError);
}

TEST(Splits, ResolveSplit) {
  Dataset data = labelled({30, 30});
  const Split random = resolve_split(data, SplitMode::Predefined, 0.25, 6);
  EXPECT_EQ(random.test, stratified_split(data, 0.25, 6).test);  // no split: random
  Split predefined;
  for (std::int64_t i = 0; i < 60; ++i) (i < 50 ? predefined.train : predefined.test).push_back(i);
  data.predefined_split = predefined;
  EXPECT_EQ(resolve_split(data, SplitMode::Predefined, 0.25, 6).test, predefined.test);
  EXPECT_EQ(resolve_split(data, SplitMode::Random, 0.25, 6).test, random.test);
}

TEST(Splits, ParseModes) {
  EXPECT_EQ(parse_split_mode("predefined"), SplitMode::Predefined);
  EXPECT_EQ(parse_split_mode("Random"), SplitMode::Random);
  EXPECT_EQ(parse_split_mode(to_string(SplitMode::Predefined)), SplitMode::Predefined);
  try {
    parse_split_mode("kfold");
    FAIL() << "no exception";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("predefined, random"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace topkfs
