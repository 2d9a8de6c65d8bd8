// The ranks' sum of a step's gradients in buckets (GradientBuckets) over
// c10d's Gloo and over shared memory, two ranks in two threads: buckets
// started in any order of their ranges' arrival, from several threads, give
// the same bits as one sum of the whole buffer, and both are the weighted sum
// of the ranks' gradients.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>
#include <vector>

#include "neural/train/gradient_buckets.hpp"
#include "ranks_in_threads.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

constexpr int kRanks = 2;
constexpr std::int64_t kRows = 6, kCols = 1000;  // the early weights: 6 ranges of one row

// Rank r's gradients: the early weights (kRows x kCols), a bias, and a
// parameter the loss does not reach (undefined gradient).
std::vector<torch::Tensor> parameters_of(int rank) {
  // From the project's seeded generator: the ranks' threads draw at once,
  // and libtorch's global generator is one for both.
  Rng rng(static_cast<std::uint64_t>(100 + rank));
  const auto normal = [&rng](std::int64_t n) {
    torch::Tensor values = torch::empty({n});
    float* to = values.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i) to[i] = static_cast<float>(rng.normal());
    return values;
  };
  std::vector<torch::Tensor> parameters{torch::zeros({kRows, kCols}), torch::zeros({50}),
                                        torch::zeros({7})};
  parameters[0].mutable_grad() = normal(kRows * kCols).view({kRows, kCols});
  parameters[1].mutable_grad() = normal(50);
  return parameters;
}

double weight_of(int rank) { return rank == 0 ? 0.375 : 0.625; }

struct Summed {
  std::vector<torch::Tensor> gradients;
  double loss = 0.0;
};

Summed bucketed(RankGroup& ranks, int rank) {
  auto parameters = parameters_of(rank);
  // Two rows make a bucket of 8000 bytes: three early buckets, then the last.
  const std::vector<std::int64_t> cuts{0, 1, 2, 3, 4, 5, 6};
  GradientBuckets buckets(ranks, parameters, 0, cuts, 2 * kCols * 4);
  EXPECT_EQ(buckets.count(), 4);
  buckets.begin_step(weight_of(rank));
  // The ranges arrive out of order, from two threads, as a team's members
  // finish their unit blocks.
  const float* grad = parameters[0].grad().data_ptr<float>();
  std::thread other([&] {
    for (int range : {5, 2, 1}) buckets.rows_ready(range, grad + range * kCols);
  });
  for (int range : {3, 0, 4}) buckets.rows_ready(range, grad + range * kCols);
  other.join();
  Summed out;
  out.loss = buckets.finish(parameters, 1.5 + rank, {});
  for (const auto& p : parameters) {
    out.gradients.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  }
  return out;
}

Summed in_one_sum(RankGroup& ranks, int rank) {
  auto parameters = parameters_of(rank);
  GradientBuckets buckets(ranks, parameters, -1, {}, 0);
  EXPECT_EQ(buckets.count(), 1);
  buckets.begin_step(weight_of(rank));
  Summed out;
  out.loss = buckets.finish(parameters, 1.5 + rank, {});
  for (const auto& p : parameters) {
    out.gradients.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  }
  return out;
}

class GradientBucketsTest : public ::testing::TestWithParam<bool> {};

TEST_P(GradientBucketsTest, BucketsInAnyOrderGiveTheBitsOfOneSum) {
  std::vector<Summed> by_buckets(kRanks), whole(kRanks);
  test::run_ranks_in_threads(
      kRanks,
      [&](ProcessRanks& ranks, int r) {
        by_buckets[static_cast<std::size_t>(r)] = bucketed(ranks, r);
        whole[static_cast<std::size_t>(r)] = in_one_sum(ranks, r);
      },
      GetParam());
  ASSERT_FALSE(HasFailure());

  // The weighted sum in float, as the ranks add it.
  const auto p0 = parameters_of(0), p1 = parameters_of(1);
  const auto w0 = static_cast<float>(weight_of(0)), w1 = static_cast<float>(weight_of(1));
  for (int r = 0; r < kRanks; ++r) {
    const Summed& b = by_buckets[static_cast<std::size_t>(r)];
    const Summed& w = whole[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_TRUE(torch::equal(b.gradients[i], w.gradients[i])) << "rank " << r << ", " << i;
      const torch::Tensor expected = p0[i].grad() * w0 + p1[i].grad() * w1;
      EXPECT_TRUE(torch::equal(b.gradients[i].view(expected.sizes()), expected))
          << "rank " << r << ", " << i;
    }
    EXPECT_FALSE(b.gradients[2].defined());
    EXPECT_FALSE(w.gradients[2].defined());
    EXPECT_EQ(b.loss, w.loss);
    EXPECT_NEAR(b.loss, 0.375 * 1.5 + 0.625 * 2.5, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, GradientBucketsTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "SharedMemory" : "Gloo";
                         });

}  // namespace
}  // namespace topkfs
