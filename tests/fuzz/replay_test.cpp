// Replays every seed of tests/fuzz/corpus and every input that once crashed
// a fuzz target (tests/fuzz/regressions) through the reader it was found in,
// in the normal build: none may crash, hang or throw anything but
// topkfs::Error (which read_bytes expects).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_entry.hpp"

namespace topkfs::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_under(const char* kind) {
  std::vector<fs::path> files;
  for (const auto& folder : fs::directory_iterator(fs::path(TOPKFS_FUZZ_DIR) / kind)) {
    if (!folder.is_directory()) continue;
    EXPECT_TRUE(is_reader(folder.path().filename().string())) << folder.path();
    for (const auto& file : fs::directory_iterator(folder.path())) {
      if (file.is_regular_file()) files.push_back(file.path());
    }
  }
  return files;
}

void replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SCOPED_TRACE(file.string());
  EXPECT_NO_THROW(read_bytes(file.parent_path().filename().string(),
                             reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

TEST(FuzzReplay, EverySeedOfTheCorpora) {
  const auto files = inputs_under("corpus");
  EXPECT_GE(files.size(), 8u);
  for (const auto& file : files) replay(file);
}

TEST(FuzzReplay, EveryCrashFoundByFuzzing) {
  for (const auto& file : inputs_under("regressions")) replay(file);
}

}  // namespace
}  // namespace topkfs::fuzz
