// The evaluation metrics (scoring/metrics.hpp) against values computed by hand.
#include "topkfs/scoring/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

TargetMatrix column(std::initializer_list<double> values) {
  TargetMatrix m(static_cast<Eigen::Index>(values.size()), 1);
  Eigen::Index i = 0;
  for (const double v : values) m(i++, 0) = v;
  return m;
}

TEST(MetricsTest, Accuracy) {
  EXPECT_DOUBLE_EQ(accuracy({0, 1, 2, 2}, {0, 1, 1, 2}), 0.75);
  EXPECT_DOUBLE_EQ(accuracy({3}, {3}), 1.0);
  EXPECT_THROW(accuracy({0, 1}, {0}), OptionError);
  EXPECT_THROW(accuracy({}, {}), OptionError);
}

TEST(MetricsTest, ErrorsOfRealTargets) {
  const TargetMatrix truth = column({1.0, 2.0, 3.0, 4.0});
  const TargetMatrix predicted = column({1.5, 2.0, 2.0, 6.0});
  // |errors| = 0.5, 0, 1, 2
  EXPECT_DOUBLE_EQ(mean_absolute_error(truth, predicted), 3.5 / 4.0);
  EXPECT_DOUBLE_EQ(root_mean_squared_error(truth, predicted), std::sqrt((0.25 + 0 + 1 + 4) / 4.0));
  // SS_res = 5.25, SS_tot = 5 (mean 2.5)
  EXPECT_DOUBLE_EQ(r2_score(truth, predicted), 1.0 - 5.25 / 5.0);
  EXPECT_DOUBLE_EQ(r2_score(truth, truth), 1.0);

  // Two outputs: each metric averaged over the outputs.
  TargetMatrix truth2(2, 2), predicted2(2, 2);
  truth2 << 0.0, 10.0, 2.0, 10.0;
  predicted2 << 1.0, 10.0, 2.0, 13.0;
  EXPECT_DOUBLE_EQ(mean_absolute_error(truth2, predicted2), (0.5 + 1.5) / 2.0);
  EXPECT_DOUBLE_EQ(root_mean_squared_error(truth2, predicted2),
                   (std::sqrt(0.5) + std::sqrt(4.5)) / 2.0);
  // Output 0: SS_res 1, SS_tot 2 -> 0.5; output 1 is constant and missed -> 0.
  EXPECT_DOUBLE_EQ(r2_score(truth2, predicted2), 0.25);
  EXPECT_THROW(mean_absolute_error(truth, truth2), OptionError);
}

TEST(MetricsTest, SelectionAgreement) {
  // |S| = 4, |T| = 5, |S ∩ T| = 3: precision 3/4, recall 3/5, F1 = 2 * 0.45 / 1.35 = 2/3.
  const SetAgreement a = selection_agreement({1, 2, 3, 9}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(a.precision, 0.75);
  EXPECT_DOUBLE_EQ(a.recall, 0.6);
  EXPECT_NEAR(a.f1, 2.0 / 3.0, 1e-15);
  const SetAgreement none = selection_agreement({7, 8}, {1, 2});
  EXPECT_EQ(none.f1, 0.0);
  const SetAgreement empty = selection_agreement({}, {1});
  EXPECT_EQ(empty.precision, 0.0);
  EXPECT_EQ(empty.f1, 0.0);
  EXPECT_DOUBLE_EQ(selection_agreement({5, 1}, {1, 5}).f1, 1.0);  // order does not matter
  EXPECT_THROW(selection_agreement({1, 1}, {1}), OptionError);
  EXPECT_THROW(selection_agreement({-1}, {1}), OptionError);
}

TEST(MetricsTest, Jaccard) {
  EXPECT_DOUBLE_EQ(jaccard_index({1, 2, 3}, {2, 3, 4, 5}), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(jaccard_index({1, 2}, {1, 2}), 1.0);
  EXPECT_DOUBLE_EQ(jaccard_index({1}, {2}), 0.0);
  EXPECT_DOUBLE_EQ(jaccard_index({}, {}), 1.0);
  // Pairs of {0,1,2}, {1,2,3}, {0,1,2}: 2/4, 1, 2/4.
  EXPECT_DOUBLE_EQ(mean_pairwise_jaccard({{0, 1, 2}, {1, 2, 3}, {0, 1, 2}}), 2.0 / 3.0);
  EXPECT_THROW(mean_pairwise_jaccard({{0}}), OptionError);
}

TEST(MetricsTest, Kuncheva) {
  // k = 3, m = 10, r = 2: (2 * 10 - 9) / (3 * 7) = 11/21.
  EXPECT_DOUBLE_EQ(kuncheva_index({0, 1, 2}, {1, 2, 5}, 10), 11.0 / 21.0);
  EXPECT_DOUBLE_EQ(kuncheva_index({0, 1, 2}, {0, 1, 2}, 10), 1.0);
  // Disjoint: r = 0 -> -k / (m - k) = -3/7, the minimum for k = 3, m = 10.
  EXPECT_DOUBLE_EQ(kuncheva_index({0, 1, 2}, {3, 4, 5}, 10), -3.0 / 7.0);
  // r = k^2 / m (chance level): k = 2, m = 4, r = 1 -> 0.
  EXPECT_DOUBLE_EQ(kuncheva_index({0, 1}, {1, 2}, 4), 0.0);
  // k = m: every selection is everything; defined as 0 (no agreement beyond chance).
  EXPECT_DOUBLE_EQ(kuncheva_index({0, 1, 2}, {2, 1, 0}, 3), 0.0);
  EXPECT_DOUBLE_EQ(kuncheva_index({}, {}, 3), 0.0);
  // Pairs of {0,1,2}, {1,2,5}, {0,1,2} with m = 10: 11/21, 1, 11/21.
  EXPECT_DOUBLE_EQ(mean_pairwise_kuncheva({{0, 1, 2}, {1, 2, 5}, {0, 1, 2}}, 10),
                   (11.0 / 21.0 * 2 + 1.0) / 3.0);
  EXPECT_THROW(kuncheva_index({0, 1}, {0}, 10), OptionError);      // sizes differ
  EXPECT_THROW(kuncheva_index({0, 10}, {0, 1}, 10), OptionError);  // out of range
  EXPECT_THROW(kuncheva_index({0}, {0}, 0), OptionError);
}

}  // namespace
}  // namespace topkfs
