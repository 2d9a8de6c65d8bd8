// The order that keeps dnn-top's top k inputs first (input_order.hpp): what
// it moves, that it moves little, and that it comes back.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "neural/model/input_order.hpp"
#include "neural/ops/top_k_mask.hpp"
#include "neural/train/trainer.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/feature_matrix.hpp"

namespace topkfs {
namespace {

using torch::Tensor;

constexpr std::int64_t kInputs = 30;
constexpr std::int64_t kK = 6;

std::vector<std::int64_t> input_at(const InputOrder& order) {
  const Tensor& at = order.input_at();
  return {at.data_ptr<std::int64_t>(), at.data_ptr<std::int64_t>() + at.numel()};
}

// w in the inputs' own order, from w kept in `order`.
std::vector<float> own_order(const Tensor& w, const InputOrder& order) {
  std::vector<float> own(static_cast<std::size_t>(kInputs));
  const auto at = input_at(order);
  for (std::int64_t p = 0; p < kInputs; ++p) {
    own[static_cast<std::size_t>(at[p])] = w[p].item<float>();
  }
  return own;
}

TEST(InputOrderTest, KeepsTheTopKFirstMovingEveryTrackedColumnAlike) {
  Rng rng(21);
  Tensor w = torch::empty({kInputs});
  for (std::int64_t j = 0; j < kInputs; ++j) w[j] = static_cast<float>(rng.normal());
  // Column j of the matrix holds 100 r + j in row r: where each column went
  // is readable from its values.
  Tensor columns = torch::arange(kInputs, torch::kFloat).repeat({3, 1}) +
                   100.0f * torch::arange(3, torch::kFloat).unsqueeze(1);
  const Tensor original_w = w.clone();
  const Tensor original_columns = columns.clone();
  InputOrder order(kInputs, kK);
  order.track(w);
  order.track(columns);

  bool moved_ever = false;
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    if (round > 0) {  // a few entries of w change, as in a training step
      for (int change = 0; change < 3; ++change) {
        w[static_cast<std::int64_t>(rng.uniform_index(kInputs))] = static_cast<float>(rng.normal());
      }
    }
    moved_ever = order.bring_top_k_first(w) || moved_ever;
    const auto at = input_at(order);
    // The first k places hold exactly the top k of w in the inputs' order.
    std::vector<std::int64_t> first(at.begin(), at.begin() + kK);
    std::sort(first.begin(), first.end());
    const auto own = own_order(w, order);
    EXPECT_EQ(first, top_k_by_magnitude(own.data(), kInputs, kK));
    // Every column sits where the order says.
    for (std::int64_t p = 0; p < kInputs; ++p) {
      for (std::int64_t r = 0; r < 3; ++r) {
        EXPECT_EQ(columns[r][p].item<float>(), static_cast<float>(100 * r + at[p]));
      }
    }
    // At most k swaps, each of a first place with an input from the rest.
    const auto swaps = order.swaps();
    EXPECT_LE(static_cast<std::int64_t>(swaps.size()), kK);
    std::int64_t displaced = 0;
    for (std::int64_t p = 0; p < kInputs; ++p) displaced += at[p] != p;
    EXPECT_EQ(displaced, 2 * static_cast<std::int64_t>(swaps.size()));
  }
  EXPECT_TRUE(moved_ever);
  // Calling it again with nothing changed moves nothing.
  EXPECT_FALSE(order.bring_top_k_first(w));

  const auto last_w = own_order(w, order);
  order.restore_own_order();
  const auto at = input_at(order);
  std::vector<std::int64_t> identity(static_cast<std::size_t>(kInputs));
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(at, identity);
  EXPECT_TRUE(torch::equal(columns, original_columns));
  // w went back to the inputs' order with its last values.
  for (std::int64_t j = 0; j < kInputs; ++j) {
    EXPECT_EQ(w[j].item<float>(), last_w[static_cast<std::size_t>(j)]);
  }
  EXPECT_FALSE(torch::equal(w, original_w));  // it did change on the way
}

// dnn-top anneals the sub-model's size from every input down to k: the
// order holds the top k_t first at every size, stays a set of disjoint
// swaps, and rows gathered in it match its columns.
TEST(InputOrderTest, AShrinkingKKeepsTheTopKtFirst) {
  Rng rng(23);
  Tensor w = torch::empty({kInputs});
  for (std::int64_t j = 0; j < kInputs; ++j) w[j] = static_cast<float>(rng.normal());
  Tensor columns = torch::arange(kInputs, torch::kFloat).unsqueeze(0);
  InputOrder order(kInputs, kK);
  order.track(w);
  order.track(columns);
  for (std::int64_t k = kInputs; k >= kK; --k) {
    SCOPED_TRACE(k);
    w[static_cast<std::int64_t>(rng.uniform_index(kInputs))] = static_cast<float>(rng.normal());
    order.bring_top_k_first(w, k);
    EXPECT_EQ(order.k(), k);
    const auto at = input_at(order);
    std::vector<std::int64_t> first(at.begin(), at.begin() + k);
    std::sort(first.begin(), first.end());
    const auto own = own_order(w, order);
    EXPECT_EQ(first, top_k_by_magnitude(own.data(), kInputs, k));
    std::int64_t displaced = 0;
    for (std::int64_t p = 0; p < kInputs; ++p) {
      displaced += at[p] != p;
      EXPECT_EQ(columns[0][p].item<float>(), static_cast<float>(at[p]));
    }
    const auto swaps = order.swaps();
    EXPECT_EQ(displaced, 2 * static_cast<std::int64_t>(swaps.size()));
    for (const auto& swap : swaps) {
      EXPECT_LT(swap.place, swap.input);
      EXPECT_EQ(at[swap.place], swap.input);
      EXPECT_EQ(at[swap.input], swap.place);
    }
  }
  order.restore_own_order();
  EXPECT_TRUE(torch::equal(columns, torch::arange(kInputs, torch::kFloat).unsqueeze(0)));
}

TEST(InputOrderTest, GatheredRowsArriveInTheOrder) {
  Rng rng(22);
  const std::int64_t rows = 7;
  FeatureMatrix features(rows, kInputs);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < kInputs; ++j) features(i, j) = static_cast<float>(rng.normal());
  }
  TrainingSet set;
  set.features = &features;
  set.offset = torch::full({kInputs}, 0.5f);
  set.inv_scale = torch::full({kInputs}, 2.0f);
  const std::vector<std::int64_t> order_of_rows = {3, 0, 6, 2};

  Tensor w = torch::linspace(0.1, 3.0, kInputs);  // largest at the end: all of the top k move
  InputOrder order(kInputs, kK);
  order.track(w);
  ASSERT_TRUE(order.bring_top_k_first(w));
  const Tensor plain = gather_batch(set, order_of_rows, 0, order_of_rows.size());
  const Tensor arranged = gather_batch(set, order_of_rows, 0, order_of_rows.size(), &order);
  EXPECT_TRUE(torch::equal(arranged, plain.index_select(1, order.input_at())));
}

TEST(InputOrderTest, LeadingPrefix) {
  EXPECT_TRUE(is_leading_prefix(torch::arange(4, torch::kLong)));
  EXPECT_FALSE(is_leading_prefix(torch::tensor(std::vector<std::int64_t>{0, 2}, torch::kLong)));
  EXPECT_FALSE(is_leading_prefix(torch::empty({0}, torch::kLong)));
}

}  // namespace
}  // namespace topkfs
