// The acceptance test of the neural methods (docs/method.md §3, protocol 3):
// with their DEFAULT options and k = 50 (and k = 10 for MNIST, where the top-k
// term matters most), dnn-top and dfs select on the
// predefined training split of MNIST and Fashion-MNIST through the CLI;
// ExtraTrees (50 trees, scikit-learn) fitted on the selected columns of the
// training split is scored on the test split. Slow (minutes): ctest label
// "quality".
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace topkfs {
namespace {

struct Scored {
  double accuracy = 0.0;
  double select_seconds = 0.0;
};

// Selects with `method` at its defaults and scores the selection.
Scored select_and_score(const std::string& folder, const std::string& method, int k = 50) {
  const std::string data = test::shared_data(folder);
  // These runs take many minutes; a cleanup of /tmp meanwhile must not turn
  // into a quality failure.
  std::filesystem::create_directories(test::temp_dir());
  const std::string output = fmt::format("{}/{}-{}-{}.json", test::temp_dir(), folder, method, k);
  const auto start = std::chrono::steady_clock::now();
  const auto select =
      test::run_cli(fmt::format("select '{}' --method {} --k {} --split predefined "
                                "--output '{}' --quiet",
                                data, method, k, output));
  Scored scored;
  scored.select_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(select.exit_code, 0) << select.err;
  if (select.exit_code != 0) return scored;

  const auto result = nlohmann::json::parse(test::read_text(output));
  EXPECT_EQ(result.at("data").at("rows"), 60000) << "selection must see the training split only";
  const auto columns = result.at("selected").get<std::vector<std::int64_t>>();
  EXPECT_EQ(columns.size(), static_cast<std::size_t>(k));
  std::filesystem::create_directories(test::temp_dir());
  const auto score =
      test::run_command(fmt::format("{} '{}/score_extra_trees.py' '{}' {}", TOPKFS_PYTHON,
                                    TOPKFS_NEURAL_TEST_DIR, data, fmt::join(columns, ",")));
  EXPECT_EQ(score.exit_code, 0) << score.err;
  if (score.exit_code != 0) return scored;
  scored.accuracy = std::stod(score.out);
  std::cout << fmt::format(
                   "[quality] {} {}: ExtraTrees accuracy {:.4f} on {} selected pixels "
                   "(selection {:.0f} s)\n",
                   folder, method, scored.accuracy, k, scored.select_seconds)
            << std::flush;
  const std::string tag = fmt::format("{}_k{}", method, k);
  ::testing::Test::RecordProperty(tag + "_accuracy", fmt::format("{:.4f}", scored.accuracy));
  ::testing::Test::RecordProperty(tag + "_seconds", fmt::format("{:.0f}", scored.select_seconds));
  return scored;
}

void expect_quality(const std::string& folder, double dnn_top_target, int k = 50) {
  const Scored dnn_top = select_and_score(folder, "dnn-top", k);
  const Scored dfs = select_and_score(folder, "dfs", k);
  EXPECT_GE(dnn_top.accuracy, dnn_top_target) << folder << ": dnn-top below the target";
  EXPECT_GT(dnn_top.accuracy, dfs.accuracy) << folder << ": dnn-top does not beat dfs";
}

// Floors from docs/quality-study.md (the defaults' MNIST k = 50: 95.7 ± 0.1
// over 3 seeds; k = 10: 74.4 ± 1.4) and from this test's own runs (seed 0,
// scikit-learn's trees: MNIST 95.5% and 74.6%, Fashion-MNIST 85.3%), less a
// margin for the machine's rounding and the scorer's trees.
TEST(QualityTest, MnistDnnTopReaches95PercentAndBeatsDfs) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  expect_quality("mnist", 0.95);
}

TEST(QualityTest, MnistTenPixelsReach72PercentAndBeatDfs) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  expect_quality("mnist", 0.72, 10);
}

TEST(QualityTest, FashionMnistDnnTopReaches84PercentAndBeatsDfs) {
  TOPKFS_REQUIRE_SHARED_DATA("fashion-mnist");
  expect_quality("fashion-mnist", 0.84);
}

}  // namespace
}  // namespace topkfs
