#include "topkfs/data/dataset.hpp"

#include <gtest/gtest.h>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

Dataset small_dataset() {
  Dataset data;
  data.features.resize(4, 3);
  data.features << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  data.feature_names = {"a", "b", "c"};
  data.target_kind = TargetKind::Classes;
  data.labels = {0, 1, 0, 1};
  data.class_names = {"no", "yes"};
  data.source = "memory";
  return data;
}

TEST(Dataset, TakeRowsKeepsTargetsAligned) {
  const Dataset data = small_dataset();
  const Dataset part = take_rows(data, {3, 0});
  ASSERT_EQ(part.rows(), 2);
  EXPECT_EQ(part.features(0, 0), 10);
  EXPECT_EQ(part.features(1, 2), 3);
  EXPECT_EQ(part.labels, (std::vector<std::int32_t>{1, 0}));
  EXPECT_NO_THROW(part.validate());
}

TEST(Dataset, TakeColumnsReordersNames) {
  const Dataset data = small_dataset();
  const Dataset part = take_columns(data, {2, 0});
  EXPECT_EQ(part.feature_names, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(part.features(1, 0), 6);
  EXPECT_THROW(take_columns(data, {3}), OptionError);
}

TEST(Dataset, TakeRowsAndColumnsKeepsBothInTheGivenOrder) {
  Dataset data = small_dataset();
  data.sample_weight = {1, 2, 3, 4};
  const Dataset part = take_rows_and_columns(data, {2, 1}, {2, 0});
  ASSERT_EQ(part.rows(), 2);
  ASSERT_EQ(part.cols(), 2);
  EXPECT_EQ(part.features(0, 0), 9);
  EXPECT_EQ(part.features(0, 1), 7);
  EXPECT_EQ(part.features(1, 0), 6);
  EXPECT_EQ(part.feature_names, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(part.labels, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(part.sample_weight, (std::vector<double>{3, 2}));
  EXPECT_NO_THROW(part.validate());
}

TEST(Dataset, ValidateRejectsMismatchedLabels) {
  Dataset data = small_dataset();
  data.labels.pop_back();
  EXPECT_THROW(data.validate(), DataError);
}

TEST(Dataset, ClassCounts) {
  EXPECT_EQ(class_counts(small_dataset()), (std::vector<std::int64_t>{2, 2}));
}

}  // namespace
}  // namespace topkfs
