// The top-k rule (topkfs/select/top_k.hpp), the one definition behind the
// sub-model's mask, the network's input order and coordinate descent's
// top-k set: the k largest |w|, ties to the lower index.
#include "topkfs/select/top_k.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

TEST(TopKRuleTest, RanksLargerMagnitudeFirstThenLowerIndex) {
  EXPECT_TRUE(ranks_before(2.0, 5, 1.0, 0));
  EXPECT_FALSE(ranks_before(1.0, 0, 2.0, 5));
  EXPECT_TRUE(ranks_before(1.0, 3, 1.0, 4));
  EXPECT_FALSE(ranks_before(1.0, 4, 1.0, 3));
  EXPECT_FALSE(ranks_before(1.0, 3, 1.0, 3));  // a strict order
  EXPECT_FALSE(ranks_before(std::nan(""), 0, 1.0, 1));
  EXPECT_FALSE(ranks_before(1.0, 1, std::nan(""), 0));
}

TEST(TopKRuleTest, KeepTopKOverASubsetByAnyMagnitude) {
  // The candidates are a subset (coordinate descent's non-zero weights), the
  // magnitude any function of the index (a gradient's absolute value).
  const std::vector<double> g = {9.0, -1.0, 4.0, -4.0, 0.5, 7.0};
  std::vector<std::int64_t> candidates = {1, 2, 3, 4, 5};
  keep_top_k(candidates, 2,
             [&](std::int64_t j) { return std::abs(g[static_cast<std::size_t>(j)]); });
  EXPECT_EQ(candidates, (std::vector<std::int64_t>{2, 5}));  // 7 and the lower of the two 4s
  std::vector<std::int64_t> few = {4, 1};
  keep_top_k(few, 3, [&](std::int64_t j) { return std::abs(g[static_cast<std::size_t>(j)]); });
  EXPECT_EQ(few, (std::vector<std::int64_t>{1, 4}));  // k or fewer: all, sorted
}

TEST(TopKRuleTest, KeepsLargestMagnitudesTiesToLowerIndex) {
  const std::vector<float> w = {0.5f, -3.0f, 2.0f, -2.0f, 1.0f, 0.0f, 2.0f};
  EXPECT_EQ(top_k_by_magnitude(w.data(), 7, 1), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(top_k_by_magnitude(w.data(), 7, 2), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(top_k_by_magnitude(w.data(), 7, 3), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(top_k_by_magnitude(w.data(), 7, 4), (std::vector<std::int64_t>{1, 2, 3, 6}));
  EXPECT_EQ(top_k_by_magnitude(w.data(), 7, 6), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 6}));
}

TEST(TopKRuleTest, AllEqualKeepsTheFirstK) {
  // w starts at exactly 1 everywhere: the first mask must be well defined.
  const std::vector<float> w(10, 1.0f);
  EXPECT_EQ(top_k_by_magnitude(w.data(), 10, 3), (std::vector<std::int64_t>{0, 1, 2}));
}

TEST(TopKRuleTest, KEqualToMKeepsAll) {
  const std::vector<float> w = {3.0f, -1.0f, 0.0f, 2.0f};
  EXPECT_EQ(top_k_by_magnitude(w.data(), 4, 4), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(TopKRuleTest, ExactlyKWithManyTies) {
  Rng rng(5);
  const std::int64_t m = 1000;
  std::vector<float> w(static_cast<std::size_t>(m));
  // Few distinct magnitudes, both signs: ties everywhere, including at the cut.
  for (auto& v : w) v = static_cast<float>(rng.uniform_int(-4, 4)) * 0.25f;
  for (std::int64_t k : {1, 37, 137, 500, 999, 1000}) {
    SCOPED_TRACE(k);
    const auto kept = top_k_by_magnitude(w.data(), m, k);
    ASSERT_EQ(static_cast<std::int64_t>(kept.size()), k);
    ASSERT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    ASSERT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end());
    std::vector<bool> is_kept(static_cast<std::size_t>(m), false);
    for (auto j : kept) is_kept[static_cast<std::size_t>(j)] = true;
    // Every kept entry beats every dropped one: larger |w|, or equal |w| and a
    // lower index.
    float min_kept = INFINITY;
    std::int64_t last_kept_at_min = -1;
    for (auto j : kept) min_kept = std::min(min_kept, std::fabs(w[static_cast<std::size_t>(j)]));
    for (auto j : kept) {
      if (std::fabs(w[static_cast<std::size_t>(j)]) == min_kept) last_kept_at_min = j;
    }
    for (std::int64_t j = 0; j < m; ++j) {
      if (is_kept[static_cast<std::size_t>(j)]) continue;
      const float magnitude = std::fabs(w[static_cast<std::size_t>(j)]);
      ASSERT_LE(magnitude, min_kept) << "dropped " << j;
      if (magnitude == min_kept) ASSERT_GT(j, last_kept_at_min) << "tie not broken by index";
    }
  }
}

}  // namespace
}  // namespace topkfs
