// The ranks' sum through shared memory (src/distributed/shared_memory_sum.hpp),
// three ranks in three threads joined as `select --nproc` joins its ranks:
// every rank ends with the sum added in rank order, bit for bit, across the
// chunk boundaries of the segment's slots and over many sums in a row, for
// floats and doubles; started sums are done when they return. And a rank's
// process that has ended (a zombie, then reaped) is seen as gone.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include "distributed/shared_memory_sum.hpp"
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

// Rank 1 in a child process: seen while it runs, gone once it has exited,
// before and after its parent reaps it.
TEST(SharedMemorySumTest, ARankWhoseProcessHasEndedIsSeenGone) {
  const std::string name = fmt::format("/topkfs-sum-test-{}", ::getpid());
  auto segment = SharedMemorySum::create(name, 2);
  EXPECT_FALSE(segment->sees_every_rank());  // rank 1 has not opened it yet
  int opened[2], release[2];
  ASSERT_EQ(::pipe(opened), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only what opening the segment needs, then wait to be let go; never
    // back into the test runner.
    // Its copies of the ends it does not use, or its read would never see
    // the end of the pipe.
    ::close(opened[0]);
    ::close(release[1]);
    try {
      const auto rank1 = SharedMemorySum::open(name, 1, 2);
      char byte = 1;
      if (::write(opened[1], &byte, 1) != 1) ::_exit(2);
      if (::read(release[0], &byte, 1) < 0) ::_exit(3);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(0);
  }
  ::close(opened[1]);
  ::close(release[0]);
  char byte = 0;
  ASSERT_EQ(::read(opened[0], &byte, 1), 1);
  EXPECT_TRUE(segment->sees_every_rank());
  ::close(release[1]);  // the child's read returns: it exits
  // A zombie until reaped: already gone.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (segment->sees_every_rank() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(segment->sees_every_rank());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(segment->sees_every_rank());
  segment->unlink_name();
  ::close(opened[0]);
}

}  // namespace
}  // namespace topkfs
