// The detection protocol (docs/method.md §3, protocol 1) on real data: noise
// columns appended as the paper does, k = the number of original columns.
// Kinematics (8192 x 8) has enough rows for every linear method to tell its
// eight columns from the noise; the full table is docs/results.md.
#include <gtest/gtest.h>

#include <algorithm>

#include "../linear/linear_test_support.hpp"
#include "test_support.hpp"
#include "topkfs/data/noise_injection.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/linear/linear_selector.hpp"

namespace topkfs {
namespace {

TEST(LinearDetection, FindsEveryOriginalColumnOfKinematics) {
  TOPKFS_REQUIRE_SHARED_DATA("kin8nm");
  const Dataset data = read_dataset(test::shared_data("kin8nm/kin8nm.csv"));
  ASSERT_EQ(data.cols(), 8);
  const NoisyDataset noisy = inject_noise_features(data, 0);
  ASSERT_EQ(noisy.data.cols(), 16);
  for (const bool top_k : {false, true}) {
    auto selector = make_linear_selector(LinearModel::ElasticNet, top_k);
    const auto result = selector->fit(noisy.data, test::all_rows(noisy.data.rows()), 8, {});
    auto selected = result.selected;
    std::sort(selected.begin(), selected.end());
    EXPECT_EQ(selected, noisy.informative) << selector->name();
    EXPECT_TRUE(result.warnings.empty()) << selector->name();
  }
}

TEST(LinearDetection, ElasticNetTopDoesAtLeastAsWellAsElasticNetOnAilerons) {
  TOPKFS_REQUIRE_SHARED_DATA("ailerons");
  const Dataset data = read_dataset(test::shared_data("ailerons/ailerons.csv"));
  ASSERT_EQ(data.cols(), 40);
  const NoisyDataset noisy = inject_noise_features(data, 0);
  int hits[2] = {0, 0};
  for (const bool top_k : {false, true}) {
    auto selector = make_linear_selector(LinearModel::ElasticNet, top_k);
    const auto result = selector->fit(noisy.data, test::all_rows(noisy.data.rows()), 40, {});
    hits[top_k] = static_cast<int>(std::count_if(result.selected.begin(), result.selected.end(),
                                                 [](std::int64_t column) { return column < 40; }));
  }
  std::printf("Ailerons, noise seed 0: F1 elastic-net %.1f%%, elastic-net-top %.1f%%\n",
              100.0 * hits[0] / 40, 100.0 * hits[1] / 40);
  EXPECT_GE(hits[1], hits[0]);
  EXPECT_GE(hits[1], 28);  // 70%: well above the 50% of a random choice
  // The paper's 82.5% for Elastic Net^top, which the marginal screen reaches
  // (ranked by weight alone this seed gives 72.5%: docs/linear.md).
  EXPECT_GE(hits[1], 33);
}

}  // namespace
}  // namespace topkfs
