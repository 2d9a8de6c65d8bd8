// The temporaries of atomic outputs (io/atomic_file.hpp): created
// exclusively under unpredictable names, so a link planted at a guessed name
// is never followed; short whatever the destination's name; with the usual
// permissions for a new file and the old ones for a replaced file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "test_support.hpp"
#include "topkfs/io/atomic_file.hpp"

namespace topkfs::test {
namespace {

namespace fs = std::filesystem;

TEST(AtomicOutput, ALinkPlantedAtTheOldTemporaryNameIsNotFollowed) {
  const std::string folder = temp_dir() + "/planted";
  fs::create_directories(folder);
  const std::string precious = write_temp_file("precious.csv", "keep me\n");
  const std::string result = folder + "/r.json";
  // The names a writer of PATH.tmpPID would have used, for this process and
  // the next few.
  for (int pid = ::getpid(); pid < ::getpid() + 50; ++pid)
    fs::create_symlink(precious, fmt::format("{}.tmp{}", result, pid));
  write_file_atomically(result, std::string("{}\n"));
  EXPECT_EQ(read_text(precious), "keep me\n");
  EXPECT_EQ(read_text(result), "{}\n");
  int temporaries = 0;
  for (const auto& entry : fs::directory_iterator(folder))
    temporaries += fs::is_symlink(entry.symlink_status()) ? 0 : 1;
  EXPECT_EQ(temporaries, 1) << "the result alone, no temporary left";
}

TEST(AtomicOutput, ALongLegalNameIsWrittenAndNewFilesGetTheUsualPermissions) {
  const std::string folder = temp_dir() + "/long";
  fs::create_directories(folder);
  const std::string name = std::string(250, 'r') + ".json";  // 255 characters, the most allowed
  const std::string path = folder + "/" + name;
  write_file_atomically(path, std::string("[]\n"));
  EXPECT_EQ(read_text(path), "[]\n");
  const mode_t mask = ::umask(022);
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0666 & ~mask);
  // A replaced file keeps its own.
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  write_file_atomically(path, std::string("[1]\n"));
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(read_text(path), "[1]\n");
}

// Every output is checked before the work: a fit of a hundred thousand
// epochs that wrote a FIFO or a folder at the end would not end here.
TEST(AtomicOutput, UnusableOutputsAreRefusedBeforeAnyTraining) {
  const std::string data =
      write_temp_file("before-work.csv", "a,b,y\n1,2,0\n2,1,1\n3,3,0\n4,0,1\n5,2,0\n6,1,1\n");
  const std::string fifo = temp_dir() + "/out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string folder = temp_dir() + "/out-folder";
  fs::create_directories(folder);
  const std::string slow = " --method stg --k 1 --epochs 100000 --min-steps 0 -q";
  for (const auto& [flag, path, kind] :
       {std::tuple<std::string, std::string, std::string>{"-o", fifo, "is a FIFO"},
        {"--save-model", folder, "is a directory"},
        {"--output-data", "/dev/null", "is a character device"}}) {
    const CommandResult run = run_cli(fmt::format("select '{}'{} {} '{}'", data, slow, flag, path));
    EXPECT_EQ(run.exit_code, 1) << flag;
    EXPECT_TRUE(contains(run.err, path + ": " + kind)) << run.err;
  }
}

}  // namespace
}  // namespace topkfs::test
