// The ranks' sum through shared memory (src/distributed/shared_memory_sum.hpp),
// three ranks in three threads joined as `select --nproc` joins its ranks:
// every rank ends with the sum added in rank order, bit for bit, across the
// chunk boundaries of the segment's slots and over many sums in a row, for
// floats and doubles; started sums are done when they return.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "ranks_in_threads.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

constexpr int kRanks = 3;
// More than two slots' worth of floats (a slot holds 262,144), and an odd
// count so that the last chunk is short.
constexpr std::size_t kCount = 600'001;

template <typename Scalar>
std::vector<Scalar> values_of(int rank, int round) {
  Rng rng(static_cast<std::uint64_t>(1000 * round + rank));
  std::vector<Scalar> values(kCount);
  for (auto& v : values) v = static_cast<Scalar>(rng.normal());
  return values;
}

// The sum as every rank must hold it: rank 0's values, plus rank 1's, plus
// rank 2's, in the values' own type.
template <typename Scalar>
std::vector<Scalar> in_rank_order(int round) {
  std::vector<Scalar> sum = values_of<Scalar>(0, round);
  for (int r = 1; r < kRanks; ++r) {
    const auto other = values_of<Scalar>(r, round);
    for (std::size_t i = 0; i < kCount; ++i) sum[i] += other[i];
  }
  return sum;
}

TEST(SharedMemorySumTest, EveryRankHoldsTheSumInRankOrderBitForBit) {
  constexpr int kRounds = 3;
  std::vector<std::vector<std::vector<float>>> floats(kRanks);
  std::vector<std::vector<std::vector<double>>> doubles(kRanks);
  test::run_ranks_in_threads(
      kRanks,
      [&](ProcessRanks& ranks, int r) {
        for (int round = 0; round < kRounds; ++round) {
          auto f = values_of<float>(r, round);
          // Alternately a plain sum and a started one.
          if (round % 2 == 0) {
            ranks.sum(f.data(), f.size());
          } else {
            ranks.start_sum(f.data(), f.size())->wait();
          }
          floats[static_cast<std::size_t>(r)].push_back(f);
          auto d = values_of<double>(r, round);
          ranks.sum(d.data(), d.size());
          doubles[static_cast<std::size_t>(r)].push_back(d);
        }
        EXPECT_EQ(ranks.sum_calls(), 2 * kRounds);
      },
      /*same_machine=*/true);
  ASSERT_FALSE(HasFailure());
  for (int round = 0; round < kRounds; ++round) {
    const auto expected_f = in_rank_order<float>(round);
    const auto expected_d = in_rank_order<double>(round);
    for (int r = 0; r < kRanks; ++r) {
      EXPECT_EQ(floats[static_cast<std::size_t>(r)][static_cast<std::size_t>(round)], expected_f)
          << "rank " << r << ", round " << round;
      EXPECT_EQ(doubles[static_cast<std::size_t>(r)][static_cast<std::size_t>(round)], expected_d)
          << "rank " << r << ", round " << round;
    }
  }
}

TEST(SharedMemorySumTest, AnEmptySumAndARankAloneChangeNothing) {
  test::run_ranks_in_threads(
      2,
      [&](ProcessRanks& ranks, int r) {
        std::vector<float> none;
        ranks.sum(none.data(), 0);
        std::vector<double> one{static_cast<double>(r + 1)};
        ranks.sum(one.data(), 1);
        EXPECT_EQ(one[0], 3.0);
      },
      /*same_machine=*/true);
  test::run_ranks_in_threads(
      1,
      [&](ProcessRanks& ranks, int) {
        std::vector<float> values{1.5f, -2.0f};
        ranks.sum(values.data(), values.size());
        EXPECT_EQ(values, (std::vector<float>{1.5f, -2.0f}));
      },
      /*same_machine=*/true);
}

}  // namespace
}  // namespace topkfs
