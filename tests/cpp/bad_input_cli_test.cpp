// Every bad input of docs/bad-input.md through the command line: a clear
// message naming the file and the place on stderr, the documented exit
// status, nothing on stdout, and no output file left behind.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "cli_expectations.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"

namespace topkfs::test {
namespace {

std::string file(const std::string& name, const std::string& content) {
  return write_temp_file(name, content);
}

TEST(BadInputCli, MissingFile) {
  expect_refused(temp_dir() + "/absent.csv", {1, {"absent.csv", "No such file"}});
}

TEST(BadInputCli, DirectoryWhereAFileIsExpected) {
  expect_refused("--format csv " + temp_dir(), {1, {"is a directory"}});
}

TEST(BadInputCli, EmptyFile) { expect_refused(file("empty.csv", ""), {1, {"empty.csv", "empty"}}); }

TEST(BadInputCli, RaggedRowNamesLineAndBothCounts) {
  expect_refused(file("ragged.csv", "a,b,y\n1,2,0\n3,4,1\n5,6\n"),
                 {1, {"ragged.csv", "line 4", "2 fields", "expected 3"}});
}

TEST(BadInputCli, NonNumericCellNamesLineColumnAndValue) {
  // A text cell makes its column categorical; --numeric refuses it instead.
  expect_refused(file("nonnum.csv", "a,b,y\n1,2,0\n3,x,1\n") + " --numeric b",
                 {1, {"nonnum.csv", "line 3", "column 2", "'b'", "'x'", "--numeric"}});
}

TEST(BadInputCli, NanIsRefusedOnRequestAndDroppedOnRequest) {
  const std::string path = file("nan.csv", "a,b,y\n1,2,0\nnan,4,1\n5,6,1\n7,8,0\n");
  // info reports missing values instead of refusing them; select imputes
  // them unless --nan error.
  expect_select_refused(path + " --nan error",
                        {1, {"nan.csv", "sample 2", "feature 1 ('a')", "NaN", "--nan drop"}});
  const CommandResult dropped = run_cli("info --json --nan drop " + path);
  EXPECT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_NE(dropped.out.find("\"rows\": 3"), std::string::npos) << dropped.out;
}

TEST(BadInputCli, InfinityIsRefused) {
  expect_select_refused(file("inf.csv", "a,b,y\n1,2,0\ninf,4,1\n5,6,1\n"),
                        {1, {"inf.csv", "infinite"}});
}

TEST(BadInputCli, AbsentTargetListsTheColumns) {
  expect_refused(file("target.csv", "a,b,y\n1,2,0\n3,4,1\n") + " --target label",
                 {1, {"target.csv", "'label'", "'a', 'b', 'y'"}});
}

TEST(BadInputCli, OneClassOnly) {
  expect_refused(file("oneclass.csv", "a,b,y\n1,2,0\n3,4,0\n"), {1, {"oneclass.csv", "one class"}});
}

TEST(BadInputCli, TruncatedGzip) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  std::ifstream in(shared_data("mnist/train-labels-idx1-ubyte.gz"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.resize(bytes.size() / 2);
  const std::string labels = file("cut-labels-idx1-ubyte.gz", bytes);
  // The images file is the real one; the labels file is cut in half.
  expect_refused(shared_data("mnist/train-images-idx3-ubyte.gz") + " --labels " + labels,
                 {1, {"cut-labels-idx1-ubyte.gz", "truncated"}});
}

TEST(BadInputCli, IdxWithWrongMagic) {
  expect_refused("--format idx " + file("wrong.idx", std::string("\x12\x34\x56\x78\0\0\0\1\0", 9)),
                 {1, {"wrong.idx", "not an IDX file", "magic"}});
}

TEST(BadInputCli, IdxSizeDisagreesWithHeader) {
  std::string bytes("\0\0\x08\x03\0\0\0\x0a\0\0\0\x1c\0\0\0\x1c", 16);
  bytes += std::string(500, '\0');
  const std::string labels = file("ten-labels-idx1-ubyte",
                                  std::string("\0\0\x08\x01\0\0\0\x0a", 8) + std::string(10, '\1'));
  expect_refused(file("short-images-idx3-ubyte", bytes) + " --labels " + labels,
                 {1, {"short-images-idx3-ubyte", "10 x 28 x 28", "file holds 500"}});
}

TEST(BadInputCli, HeaderClaimingMoreRowsThanTheFileHoldsIsRefusedBeforeAllocating) {
  std::string bytes("\0\0\x08\x03\x7f\xff\xff\xff\0\0\0\x1c\0\0\0\x1c", 16);
  bytes += std::string(100, '\0');
  // 2^31 x 784 floats would be 6.7 TB: refused from the header, no allocation.
  expect_refused(file("huge-images-idx3-ubyte", bytes) + " --labels x",
                 {1, {"huge-images-idx3-ubyte", "2147483647 x 28 x 28"}});
}

TEST(BadInputCli, MatWithoutTheVariableListsTheVariables) {
  const std::string path =
      python_fixture("novar.mat", "import scipy.io\nscipy.io.savemat(out, {'A': np.ones((3, 2))})");
  ASSERT_FALSE(HasFatalFailure());
  expect_refused(path, {1, {"novar.mat", "no variable 'X'", "A (double 3x2)"}});
}

TEST(BadInputCli, Hdf5PathAbsentListsThePaths) {
  const std::string path = python_fixture(
      "nopath.h5", "import h5py\nwith h5py.File(out, 'w') as f:\n    f['data'] = np.ones((3, 2))");
  ASSERT_FALSE(HasFatalFailure());
  expect_refused(path + " --x-path /train/data --y-path /train/target",
                 {1, {"nopath.h5", "'/train/data'", "/data (3x2"}});
}

// A copy of a fuzz regression input under a name that picks its format.
std::string regression_copy(const std::string& input, const std::string& name) {
  std::ifstream in(fixture("../fuzz/regressions/" + input), std::ios::binary);
  return file(name, std::string(std::istreambuf_iterator<char>(in), {}));
}

TEST(BadInputCli, Hdf5ChunkGridLargerThanTheFileIsRefused) {
  expect_refused(regression_copy("hdf5/oom-13ce7e566b10c8995c6a5cef17c5f4c59d8d7320", "grid.h5"),
                 {1,
                  {"grid.h5: dataset '/X' (6x262144) is stored in 393216 chunks of 2x2",
                   "more chunks than the file has bytes (4617)", "h5repack"}});
}

TEST(BadInputCli, MatV73AttributeLongerThanItsMessageIsRefused) {
  expect_refused(
      regression_copy("mat/crash-1379b9cd0ea6f3aa797a3f0737c4d5c6cfc1ed65", "attribute.mat"),
      {1, {"topkfs: error: ", "attribute.mat: "}});
}

TEST(BadInputCli, UsageErrorsExitWithTwo) {
  const std::string path = file("ok.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n");
  EXPECT_EQ(run_cli("info " + path + " --nan sometimes").exit_code, 2);
  EXPECT_EQ(run_cli("info " + path + " --format xls").exit_code, 2);
  EXPECT_EQ(run_cli("info").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("info " + path + " --image-shape 3").exit_code, 2);
  EXPECT_EQ(run_cli("info " + path).exit_code, 0);
}

}  // namespace
}  // namespace topkfs::test
