// A mapped .npy truncated while it is read ends the process with a message
// naming the file and exit status 1, not "Bus error", in a program that
// installs the handler as the command does (topkfs/io/mapping_faults.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "hand_made_files.hpp"
#include "test_support.hpp"
#include "topkfs/io/mapping_faults.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

TEST(MappedFileChange, ATruncatedMappedNpyEndsWithAMessageNamingIt) {
  constexpr int kRows = 2000;
  constexpr int kCols = 64;  // 512 KB of float32: many pages past the cut
  std::string payload(static_cast<std::size_t>(kRows) * kCols * sizeof(float), '\0');
  const std::string path = write_temp_file(
      "changing.npy",
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2000, 64), }", payload));
  const std::string messages = in_temp("changing.err");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int err = ::open(messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(err, STDERR_FILENO);
    handle_mapping_faults();
    ReadOptions options;
    options.no_target = true;
    const Dataset data = read_dataset(path, options);
    if (data.features.storage() != RowStorage::Mapped) ::_exit(3);
    if (::truncate(path.c_str(), 4096) != 0) ::_exit(4);
    volatile float last = data.features(kRows - 1, kCols - 1);  // past the new end
    (void)last;
    ::_exit(5);  // the read went through: the fault was not raised
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string text = read_text(messages);
  EXPECT_TRUE(contains(text, "topkfs: error: " + path + ": the file changed while it was read"))
      << text;
}

}  // namespace
}  // namespace topkfs::test
