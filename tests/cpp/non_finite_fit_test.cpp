// A fit whose losses or scores overflow (a regression target of |y| near
// 1e155: its squares exceed double precision) is refused with the target's
// scale, leaves no result file, and never falls back to column order.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs::test {
namespace {

TEST(NonFiniteFit, AHugeTargetIsRefusedWithItsScaleAndNoResultFile) {
  Rng rng(3);
  std::string text = "a,b,y\n";
  for (int i = 0; i < 60; ++i) {
    const double a = rng.normal(), b = rng.normal();
    text += fmt::format("{:.4f},{:.4f},{:.6e}\n", a, b, a * 1e155);
  }
  const std::string path = write_temp_file("huge-target.csv", text);
  for (const char* method : {"ridge", "lasso-top", "elastic-net-top", "random-forest"}) {
    SCOPED_TRACE(method);
    const std::string output = in_temp(fmt::format("huge-{}.json", method));
    const CommandResult run =
        run_cli(fmt::format("select '{}' --method {} --k 1 -q -o '{}'", path, method, output));
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_TRUE(contains(run.err, "values too large for double precision")) << run.err;
    EXPECT_TRUE(contains(run.err, "the target reaches |y| = ")) << run.err;
    EXPECT_FALSE(std::filesystem::exists(output));
  }
  // Divided by 1e150, the same data selects a.
  std::string scaled = "a,b,y\n";
  Rng again(3);
  for (int i = 0; i < 60; ++i) {
    const double a = again.normal(), b = again.normal();
    scaled += fmt::format("{:.4f},{:.4f},{:.6e}\n", a, b, a * 1e5);
  }
  const CommandResult fine = run_cli(fmt::format("select '{}' --method ridge --k 1 -q",
                                                 write_temp_file("scaled-target.csv", scaled)));
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

}  // namespace
}  // namespace topkfs::test
