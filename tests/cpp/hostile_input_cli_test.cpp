// Files and command lines made by a hostile user, through the real command:
// each is refused with a message naming the file and the reason, never a
// crash, a hang, a wrapped number or a destroyed file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_expectations.hpp"
#include "hand_made_files.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"

namespace topkfs::test {
namespace {

namespace fs = std::filesystem;

const char* const kTable = "a,b,c,d,y\n1,2,3,4,0\n2,3,4,5,1\n3,4,5,6,0\n4,5,6,7,1\n5,6,7,8,0\n";
// The selection of the output tests: what they check does not depend on the
// method, and random-forest fits kTable in a fraction of a second, where
// dnn-top's 4000 default steps took minutes under ASan on a busy machine
// (past the FIFO test's 60 s guard).
const std::string kSelect = " --k 1 -q --method random-forest";

// A header whose shape tuple nests `depth` brackets.
std::string deeply_nested_npy(int depth) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " +
                           std::string(static_cast<std::size_t>(depth), '[') + "}";
  return npy_bytes(dict, "", 2);
}

TEST(HostileInputCli, DeeplyNestedNpyHeaderIsRefusedNotAStackOverflow) {
  const std::string path = write_temp_file("deep.npy", deeply_nested_npy(60000));
  expect_refused(path, {1, {"deep.npy", "nested brackets"}});
}

TEST(HostileInputCli, DeeplyNestedNpyHeaderInsideAnNpzIsRefused) {
  const std::string path =
      write_temp_file("deep.npz", zip_bytes({{"X.npy", deeply_nested_npy(60000)}}));
  expect_refused(path, {1, {"deep.npz: X.npy", "nested brackets"}});
}

TEST(HostileInputCli, ZeroRowsOfHugeImagesAreRefusedWithoutAnAssertion) {
  const std::string images =
      write_temp_file("zero-images-idx3-ubyte", idx_header({0, 0xFFFFFFFFu, 0xFFFFFFFFu}));
  const std::string labels = write_temp_file("zero-labels-idx1-ubyte", idx_header({0}));
  expect_refused(images + " --labels " + labels,
                 {1, {"zero-images-idx3-ubyte", "no samples", "0 x 4294967295 x 4294967295"}});
}

TEST(HostileInputCli, ZeroRowNpyOfHugeColumnsIsRefusedBeforeNamingThem) {
  const std::string overflowing = write_temp_file(
      "zero-rows.npy",
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 9223372036854775808), }",
                ""));
  expect_refused(overflowing, {1, {"zero-rows.npy", "no samples", "(0, 9223372036854775808)"}});
  // Fits 64 bits but would have named a hundred million columns first.
  const std::string wide = write_temp_file(
      "zero-rows-wide.npy",
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 100000000), }", ""));
  expect_refused(wide, {1, {"zero-rows-wide.npy", "no samples"}});
}

TEST(HostileInputCli, ZeroRowHdf5NamesTheReasonAndTheDataset) {
  const std::string path =
      python_fixture("zero-rows.h5",
                     "import h5py\nwith h5py.File(out, 'w') as f:\n"
                     "    f['X'] = np.zeros((0, 3), 'f4')\n    f['Y'] = np.zeros(0)");
  ASSERT_FALSE(HasFatalFailure());
  expect_refused(path, {1, {"zero-rows.h5", "no samples", "'/X' 0x3"}});
}

TEST(HostileInputCli, MatVariableWithFewerValuesThanItsDimensionsIsRefused) {
  const std::string short_target = write_temp_file(
      "short-y.mat", mat_v5_bytes({{"X", 4, 2, {1, 2, 3, 4, 5, 6, 7, 8}}, {"Y", 4, 1, {0, 1}}}));
  expect_refused(short_target, {1, {"short-y.mat", "stores 16 bytes", "need 32"}});
  const std::string short_features = write_temp_file(
      "short-x.mat", mat_v5_bytes({{"X", 4, 2, {1, 2, 3}}, {"Y", 4, 1, {0, 1, 0, 1}}}));
  expect_refused(short_features, {1, {"short-x.mat", "stores 24 bytes", "need 64"}});
}

TEST(HostileInputCli, OutputThroughASymbolicLinkReplacesItsTargetAndKeepsTheLink) {
  const std::string data = write_temp_file("link-data.csv", kTable);
  const std::string target = write_temp_file("link-target.json", "old");
  const std::string link = temp_dir() + "/link.json";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  const CommandResult result = run_cli("select " + data + kSelect + " -o " + link);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_NE(read_text(target).find("\"selected\""), std::string::npos);
  // A link to a file that does not exist yet creates that file.
  const std::string dangling = temp_dir() + "/dangling.json";
  ASSERT_EQ(::symlink("link-created.json", dangling.c_str()), 0);
  ASSERT_EQ(run_cli("select " + data + kSelect + " -o " + dangling).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_TRUE(fs::is_regular_file(temp_dir() + "/link-created.json"));
}

TEST(HostileInputCli, OutputOntoADeviceOrAFifoIsRefused) {
  const std::string data = write_temp_file("special-data.csv", kTable);
  expect_message(run_cli("select " + data + " --k 1 -q -o /dev/null"), "/dev/null",
                 {1, {"/dev/null", "character device", "regular files"}});
  const std::string fifo = temp_dir() + "/out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_message(run_command("timeout 60 " + std::string(TOPKFS_CLI_PATH) + " select " + data +
                             kSelect + " -o " + fifo),
                 fifo, {1, {"out.fifo", "FIFO"}});
}

TEST(HostileInputCli, ReplacedOutputKeepsItsPermissions) {
  const std::string data = write_temp_file("mode-data.csv", kTable);
  const std::string output = write_temp_file("private.json", "old");
  ASSERT_EQ(::chmod(output.c_str(), 0600), 0);
  ASSERT_EQ(run_cli("select " + data + kSelect + " -o " + output).exit_code, 0);
  struct stat info {};
  ASSERT_EQ(::stat(output.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(HostileInputCli, OutputNamingTheInputIsRefusedAndTheDataStays) {
  const std::string data = write_temp_file("precious.csv", kTable);
  expect_message(run_cli("select " + data + kSelect + " -o " + data), "-o DATA",
                 {2, {"--output", "precious.csv", "input file"}});
  // The same file by another spelling of its path.
  expect_message(
      run_cli("select " + data + kSelect + " --output-data " + temp_dir() + "/./precious.csv"),
      "--output-data DATA", {2, {"--output-data", "input file"}});
  EXPECT_EQ(read_text(data), kTable);
}

TEST(HostileInputCli, TwoOutputsOnOneFileAreRefused) {
  const std::string data = write_temp_file("twice-data.csv", kTable);
  const std::string output = temp_dir() + "/twice.out";
  expect_message(run_cli("select " + data + kSelect + " -o " + output + " --output-data " + output),
                 "-o F --output-data F", {2, {"--output", "--output-data", "twice.out"}});
  EXPECT_FALSE(path_exists(output));
}

TEST(HostileInputCli, AFailingLaterOutputLeavesNoEarlierOneBehind) {
  const std::string data = write_temp_file("group-data.csv", kTable);
  const std::string json = temp_dir() + "/group.json";
  const std::string unwritable = temp_dir() + "/no-such-folder/reduced.csv";
  const CommandResult result =
      run_cli("select " + data + kSelect + " -o " + json + " --output-data " + unwritable);
  expect_message(result, "--output-data in a missing folder", {1, {"reduced.csv"}});
  EXPECT_FALSE(path_exists(json)) << "the JSON was written although --output-data failed";
  for (const auto& entry : fs::directory_iterator(temp_dir())) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

TEST(HostileInputCli, FifoAsDataOrSelectionIsRefusedInsteadOfBlocking) {
  const std::string fifo = temp_dir() + "/data.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string cli = "timeout 60 " + std::string(TOPKFS_CLI_PATH);
  expect_message(run_command(cli + " info " + fifo), "info FIFO", {1, {"data.fifo", "FIFO"}});
  const std::string data = write_temp_file("fifo-data.csv", kTable);
  expect_message(run_command(cli + " transform " + data + " --selection " + fifo + " -o " +
                             temp_dir() + "/reduced.csv"),
                 "--selection FIFO", {1, {"data.fifo", "FIFO"}});
}

TEST(HostileInputCli, BinaryTargetWithAMissingCellStaysClasses) {
  const std::string path =
      write_temp_file("missing-label.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,\n7,8,nan\n9,1,0\n2,2,1\n");
  expect_select_refused(path + " --nan error",
                        {1, {"missing-label.csv", "sample 3", "class label", "--nan drop"}});
  const CommandResult dropped = run_cli("info --json --nan drop " + path);
  ASSERT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_NE(dropped.out.find("\"rows\": 4"), std::string::npos) << dropped.out;
  EXPECT_NE(dropped.out.find("classes"), std::string::npos) << dropped.out;
}

TEST(HostileInputCli, NumbersThatWouldWrapAreRefused) {
  const std::string data = write_temp_file("wrap-data.csv", kTable);
  expect_message(run_cli("info " + data + " --image-shape 4294967301x1"), "--image-shape",
                 {2, {"--image-shape", "4294967301x1"}});
  expect_message(run_cli("select " + data + " --k 1 -q --method dnn-top --hidden 2000000000"),
                 "--hidden", {2, {"--hidden", "2000000000"}});
  const std::string selection = write_temp_file(
      "huge-k.json",
      R"({"format": "topkfs-selection/1", "method": "m", "k": 1e12, "selected": [0], "selected_names": ["a"], "ranking": [0],
          "scores": [1], "fit_seconds": 0, "options": {}, "history": [],
          "data": {"path": "x", "format": "csv", "rows": 5, "columns": 4,
                   "target_kind": "classes"}})");
  expect_message(run_cli("transform " + data + " --selection " + selection + " -o " + temp_dir() +
                         "/wrap.csv"),
                 "k 1e12", {1, {"huge-k.json", "'k'", "not an integer"}});
}

TEST(HostileInputCli, DeflatedNpzMemberClaimingFarMoreThanItHoldsIsRefused) {
  // Random values barely compress, so a claim of 1000 times the member's
  // size stays within deflate's largest ratio and only inflating shows it.
  std::string values(4096, '\0');
  std::uint32_t state = 12345;
  for (char& byte : values) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<char>(state >> 24);
  }
  const std::string member =
      npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (64, 64), }", values);
  ZipMember claiming{"X.npy", member, true, 1000 * member.size()};
  const std::string path = write_temp_file("bomb.npz", zip_bytes({claiming}));
  expect_refused(path, {1,
                        {"bomb.npz: X.npy", "inflates to " + std::to_string(member.size()),
                         std::to_string(claiming.claimed_size)}});
}

TEST(HostileInputCli, UsageErrorsCarryTheErrorPrefix) {
  const std::string data = write_temp_file("usage-data.csv", kTable);
  for (const std::string& args : std::vector<std::string>{
           "info", "frobnicate", "info " + data + " --no-such-flag", "select " + data}) {
    expect_message(run_cli(args), args, {2, {}});
  }
}

}  // namespace
}  // namespace topkfs::test
