#include "topkfs/core/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace topkfs {
namespace {

TEST(Rng, EngineIsTheStandardMt19937_64) {
  // The C++ standard fixes the 10000th output for the default seed 5489.
  Rng rng(5489);
  for (int i = 0; i < 9999; ++i) rng.next_u64();
  EXPECT_EQ(rng.next_u64(), 9981545732273789042ULL);
}

TEST(Rng, UniformUsesTheTop53Bits) {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    const double u = a.uniform();
    EXPECT_EQ(u, static_cast<double>(b.next_u64() >> 11) / 9007199254740992.0);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(Rng, NormalIsBoxMullerOfTwoUniforms) {
  // The documented algorithm, so a seed gives these numbers with any library.
  Rng rng(42), raw(42);
  for (int pair = 0; pair < 50; ++pair) {
    const double u1 = 1.0 - raw.uniform();
    const double u2 = raw.uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 6.283185307179586476925286766559 * u2;
    EXPECT_EQ(rng.normal(), radius * std::cos(angle));
    EXPECT_EQ(rng.normal(), radius * std::sin(angle));
  }
}

TEST(Rng, NormalMoments) {
  Rng rng(1);
  const int n = 200000;
  double sum = 0.0, squares = 0.0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal(3.0, 2.0);
    sum += z;
    squares += z * z;
  }
  const double mean = sum / n;
  const double sd = std::sqrt(squares / n - mean * mean);
  EXPECT_NEAR(mean, 3.0, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(sd, 2.0, 0.02);
}

TEST(Rng, UniformIndexCoversTheRangeEvenly) {
  Rng rng(3);
  std::vector<int> counts(7, 0);
  const int n = 70000;
  for (int i = 0; i < n; ++i) ++counts[rng.uniform_index(7)];
  for (int c : counts) EXPECT_NEAR(c, n / 7, 5 * std::sqrt(n / 7.0));
  for (int i = 0; i < 1000; ++i) {
    const auto v = rng.uniform_int(-2, 2);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 2);
  }
  EXPECT_EQ(rng.uniform_index(1), 0u);
}

TEST(Rng, PermutationAndSample) {
  Rng rng(11);
  auto perm = rng.permutation(50);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> expected(50);
  std::iota(expected.begin(), expected.end(), std::int64_t{0});
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(perm, expected);

  const auto sample = rng.sample_without_replacement(1000, 20);
  ASSERT_EQ(sample.size(), 20u);
  const std::set<std::int64_t> distinct(sample.begin(), sample.end());
  EXPECT_EQ(distinct.size(), 20u);
  EXPECT_GE(*distinct.begin(), 0);
  EXPECT_LT(*distinct.rbegin(), 1000);
  EXPECT_EQ(rng.sample_without_replacement(5, 5).size(), 5u);
}

TEST(Rng, SameSeedSameStreamOtherSeedOtherStream) {
  Rng a(123), b(123), c(124);
  std::vector<double> va, vb, vc;
  for (int i = 0; i < 10; ++i) {
    va.push_back(a.normal());
    vb.push_back(b.normal());
    vc.push_back(c.normal());
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
}

TEST(Rng, DerivedSeedsDiffer) {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    for (std::uint64_t stream = 0; stream < 100; ++stream) seeds.insert(derive_seed(seed, stream));
  }
  EXPECT_EQ(seeds.size(), 400u);
  EXPECT_EQ(derive_seed(9, 3), derive_seed(9, 3));
}

}  // namespace
}  // namespace topkfs
