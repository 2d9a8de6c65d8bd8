// Fits that cannot mean anything: losses or scores that overflow (a
// regression target of |y| near 1e155: its squares exceed double
// precision) are refused with the target's scale and leave no result file;
// a constant target is refused; selected constant columns are warned of;
// one array as features and target is refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs::test {
namespace {

TEST(DegenerateFit, AHugeTargetIsRefusedWithItsScaleAndNoResultFile) {
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

TEST(DegenerateFit, AConstantTargetIsRefusedAndSelectedConstantColumnsWarned) {
  const std::string constant =
      write_temp_file("constant-target.csv", "a,b,y\n1,5,3\n2,5,3\n3,5,3\n4,5,3\n");
  const CommandResult refused =
      run_cli(fmt::format("select '{}' --task regression --method ridge --k 1 -q", constant));
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(contains(refused.err, "the target is constant (3) over the 4 training rows"))
      << refused.err;

  const std::string flat = write_temp_file(
      "constant-column.csv", "a,b,c,y\n1,5,2,0\n2,5,1,1\n3,5,3,0\n4,5,0,1\n5,5,1,0\n6,5,2,1\n");
  const CommandResult all =
      run_cli(fmt::format("select '{}' --method random-forest --k 3 --json -q", flat));
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_TRUE(contains(all.out,
                       "1 of the 3 columns are constant over the training rows, and 1 "
                       "of them were selected"))
      << all.out;
  const CommandResult some =
      run_cli(fmt::format("select '{}' --method random-forest --k 1 --json -q", flat));
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_TRUE(contains(some.out, "constant over the training rows (none selected)")) << some.out;
}

TEST(DegenerateFit, OneArrayAsFeaturesAndTargetIsRefused) {
  const std::string npz = python_fixture(
      "same-array.npz", "np.savez(out, X=np.ones((4, 2), np.float32), Y=np.arange(4))\n");
  ASSERT_FALSE(HasFatalFailure());
  const CommandResult npz_run =
      run_cli(fmt::format("select '{}' --y-var X --method lasso --k 1 -q", npz));
  EXPECT_EQ(npz_run.exit_code, 2) << npz_run.err;
  EXPECT_TRUE(contains(npz_run.err, "--x-var and --y-var both name 'X'")) << npz_run.err;
  const std::string h5 = python_fixture("same-array.h5",
                                        "import h5py\n"
                                        "with h5py.File(out, 'w') as f:\n"
                                        "    f['X'] = np.ones((4, 2))\n");
  ASSERT_FALSE(HasFatalFailure());
  const CommandResult h5_run =
      run_cli(fmt::format("select '{}' --x-path /X --y-path X --method lasso --k 1 -q", h5));
  EXPECT_EQ(h5_run.exit_code, 2) << h5_run.err;
  EXPECT_TRUE(contains(h5_run.err, "--x-path and --y-path both name /X")) << h5_run.err;
}

}  // namespace
}  // namespace topkfs::test
