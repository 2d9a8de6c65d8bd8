// --nproc and the world size are bounded by what a machine (or a run) can
// take: a typo of a few zeros is a usage error before any process starts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace topkfs::test {
namespace {

TEST(RankBounds, TooManyRanksAreAUsageErrorBeforeAnyWork) {
  const std::string path = write_temp_file("ranks.csv", "a,b,y\n1,2,3\n2,1,4\n3,3,1\n4,0,2\n");
  const CommandResult local =
      run_cli(fmt::format("select '{}' --method lasso --k 1 --nproc 100000 -q", path));
  EXPECT_EQ(local.exit_code, 2) << local.err;
  EXPECT_TRUE(contains(local.err, "--nproc 100000: this machine runs at most")) << local.err;
  const CommandResult world = run_cli(fmt::format(
      "select '{}' --method lasso --k 1 --rank 0 --world-size 5000 --master 127.0.0.1:1 -q", path));
  EXPECT_EQ(world.exit_code, 2) << world.err;
  EXPECT_TRUE(contains(world.err, "the world size 5000 is above 1024")) << world.err;
}

}  // namespace
}  // namespace topkfs::test
