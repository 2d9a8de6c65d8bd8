#include "topkfs/data/feature_matrix.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {
namespace {

// 3 x 4 with m(i, j) = 10 i + j.
FeatureMatrix counting_matrix() {
  FeatureMatrix m(3, 4);
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j) m(i, j) = static_cast<float>(10 * i + j);
  }
  return m;
}

// A lent buffer whose owner handle records its release.
struct Lender {
  std::vector<float> values;
  bool released = false;

  Lender(Eigen::Index rows, Eigen::Index cols) : values(static_cast<std::size_t>(rows * cols)) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) + 0.5F;
  }
  std::shared_ptr<const void> owner() {
    return std::shared_ptr<const void>(values.data(), [this](const void*) { released = true; });
  }
};

TEST(FeatureMatrix, CopyIsDeep) {
  FeatureMatrix a = counting_matrix();
  FeatureMatrix b = a;
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(b, a);
  b(1, 2) = -1;
  EXPECT_EQ(a(1, 2), 12);
  FeatureMatrix c(1, 1);
  c = a;
  EXPECT_NE(c.data(), a.data());
  EXPECT_EQ(c, a);
  c = c;  // self-assignment keeps the values
  EXPECT_EQ(c, a);
  FeatureMatrix same_size(3, 4);
  const float* buffer = same_size.data();
  same_size = a;  // as Eigen: the same size is copied into the same buffer
  EXPECT_EQ(same_size.data(), buffer);
  EXPECT_EQ(same_size, a);
}

TEST(FeatureMatrix, MoveStealsTheBuffer) {
  FeatureMatrix a = counting_matrix();
  const float* buffer = a.data();
  FeatureMatrix b = std::move(a);
  EXPECT_EQ(b.data(), buffer);
  EXPECT_EQ(b(2, 3), 23);
  EXPECT_EQ(a.size(), 0);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  FeatureMatrix c;
  c = std::move(b);
  EXPECT_EQ(c.data(), buffer);
  EXPECT_EQ(b.rows(), 0);  // NOLINT(bugprone-use-after-move)
}

TEST(FeatureMatrix, ResizeAsEigen) {
  FeatureMatrix m = counting_matrix();
  const float* buffer = m.data();
  m.resize(3, 4);  // same size: the buffer and values stay
  EXPECT_EQ(m.data(), buffer);
  EXPECT_EQ(m(2, 3), 23);
  m.resize(4, 3);  // same count: the buffer stays, reshaped row-major
  EXPECT_EQ(m.data(), buffer);
  EXPECT_EQ(m(1, 0), 3);
  m.resize(5, 5);
  EXPECT_EQ(m.rows(), 5);
  EXPECT_EQ(m.cols(), 5);
  m.setZero(2, 6);
  EXPECT_EQ(m.rows(), 2);
  EXPECT_TRUE((m.array() == 0).all());
}

TEST(FeatureMatrix, ConservativeResizeKeepsTheTopLeftBlock) {
  const FeatureMatrix original = counting_matrix();
  FeatureMatrix fewer_rows = original;
  fewer_rows.conservativeResize(2, 4);
  EXPECT_EQ(fewer_rows, original.topRows(2));
  FeatureMatrix more_rows = original;
  more_rows.conservativeResize(6, 4);
  EXPECT_EQ(more_rows.topRows(3), original);
  FeatureMatrix other_shape = original;
  other_shape.conservativeResize(5, 2);
  EXPECT_EQ(other_shape.topRows(3), original.leftCols(2));
  other_shape.conservativeResize(2, 7);
  EXPECT_EQ(other_shape.leftCols(2), original.topLeftCorner(2, 2));
  other_shape.conservativeResize(0, 7);
  EXPECT_EQ(other_shape.size(), 0);
}

TEST(FeatureMatrix, AssignsEigenExpressionsEvenWhenTheyReadIt) {
  FeatureMatrix m = counting_matrix();
  m = m.leftCols(2);  // the source is read before the old buffer goes
  ASSERT_EQ(m.cols(), 2);
  EXPECT_EQ(m(2, 1), 21);
  m = FeatureMatrix::Zero(2, 2);
  EXPECT_EQ(m.sum(), 0);
  const Eigen::MatrixXd doubles = Eigen::MatrixXd::Constant(3, 2, 1.5);
  const FeatureMatrix cast = doubles.cast<float>();
  EXPECT_EQ(cast.rows(), 3);
  EXPECT_EQ(cast(2, 1), 1.5F);
}

TEST(FeatureMatrix, BorrowedReadsTheLendersBufferWithoutACopy) {
  Lender lender(5, 3);
  const FeatureMatrix m = FeatureMatrix::borrow(lender.values.data(), 5, 3, lender.owner());
  EXPECT_TRUE(m.borrowed());
  EXPECT_EQ(m.data(), lender.values.data());
  EXPECT_EQ(m(4, 2), 14.5F);
  EXPECT_EQ(m.row(1).sum(), 3.5F + 4.5F + 5.5F);
  EXPECT_FALSE(counting_matrix().borrowed());
  EXPECT_FALSE(FeatureMatrix().borrowed());
}

TEST(FeatureMatrix, OwnerIsReleasedWithTheLastHolder) {
  Lender lender(4, 2);
  {
    FeatureMatrix a = FeatureMatrix::borrow(lender.values.data(), 4, 2, lender.owner());
    FeatureMatrix b = std::move(a);  // the borrow moves along
    EXPECT_TRUE(b.borrowed());
    EXPECT_EQ(b.data(), lender.values.data());
    {
      const FeatureMatrix copy = b;  // a deep copy holds no reference
      EXPECT_FALSE(copy.borrowed());
      EXPECT_NE(copy.data(), lender.values.data());
      EXPECT_EQ(copy, b);
    }
    EXPECT_FALSE(lender.released);
  }
  EXPECT_TRUE(lender.released);
}

TEST(FeatureMatrix, WholeMatrixChangesNeverWriteTheLendersBuffer) {
  Lender lender(4, 2);
  const std::vector<float> before = lender.values;
  FeatureMatrix m = FeatureMatrix::borrow(lender.values.data(), 4, 2, lender.owner());
  m.conservativeResize(3, 2);
  EXPECT_FALSE(m.borrowed());
  EXPECT_TRUE(lender.released);
  EXPECT_EQ(m(2, 1), 5.5F);
  m(0, 0) = 100;  // owned now
  for (auto change : {0, 1, 2}) {
    Lender again(4, 2);
    FeatureMatrix b = FeatureMatrix::borrow(again.values.data(), 4, 2, again.owner());
    if (change == 0) b.resize(4, 2);  // same size, but the buffer is not the matrix's own
    if (change == 1) b = FeatureMatrix::Constant(4, 2, 7.0F);
    if (change == 2) b.setZero(4, 2);
    EXPECT_FALSE(b.borrowed()) << change;
    EXPECT_TRUE(again.released) << change;
    EXPECT_EQ(again.values, before) << change;
  }
  EXPECT_EQ(lender.values, before);
}

TEST(FeatureMatrix, DatasetCopyOfABorrowedOneCopiesTheValues) {
  Lender lender(3, 2);
  Dataset data;
  data.features = FeatureMatrix::borrow(lender.values.data(), 3, 2, lender.owner());
  const Dataset copy = data;
  EXPECT_FALSE(copy.features.borrowed());
  EXPECT_EQ(copy.features, data.features);
  const Dataset rows = take_rows(data, {2, 0});
  EXPECT_EQ(rows.features(0, 1), 5.5F);
  data = Dataset();
  EXPECT_TRUE(lender.released);
}

}  // namespace
}  // namespace topkfs
