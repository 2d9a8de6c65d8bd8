// Sample and class weights through the command (--sample-weight,
// --weight-file, --class-weight; data/sample_weights.hpp): rows of weight 0
// are as if removed, the weight column is not a feature, and bad weights are
// refused naming the file and row.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs::test {
namespace {

using nlohmann::json;

// 240 rows: 160 of y = 2 a - b + noise (weight 1 or 2), then 80 whose y
// follows the noise column e instead (weight 0), written with their weight
// column w, without it, or expanded: only the rows that weigh, each as many
// times as its weight.
enum class Rows { WithWeights, WithoutWeights, Expanded };

int planted_weight(int i) { return i >= 160 ? 0 : (i % 4 == 0 ? 2 : 1); }

std::string weighted_csv(Rows form) {
  Rng rng(11);
  std::string text = form == Rows::WithWeights ? "a,b,c,e,w,y\n" : "a,b,c,e,y\n";
  for (int i = 0; i < 240; ++i) {
    const double a = rng.normal(), b = rng.normal(), c = rng.normal(), e = rng.normal();
    const int weight = planted_weight(i);
    const double y = weight == 0 ? 6 * e + 0.1 * rng.normal() : 2 * a - b + 0.3 * rng.normal();
    if (form == Rows::WithWeights) {
      text += fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{},{:.4f}\n", a, b, c, e, weight, y);
      continue;
    }
    const int copies = form == Rows::Expanded ? weight : 1;
    for (int copy = 0; copy < copies; ++copy)
      text += fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", a, b, c, e, y);
  }
  return text;
}

json select_json(const std::string& args) {
  const CommandResult run = run_cli("select " + args + " --json -q");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? json::parse(run.out) : json();
}

TEST(SampleWeightsCli, WeightZeroRemovesRowsAndTheWeightColumnIsNoFeature) {
  const std::string weighted = write_temp_file("weighted.csv", weighted_csv(Rows::WithWeights));
  const std::string expanded = write_temp_file("expanded.csv", weighted_csv(Rows::Expanded));
  const std::string bare = write_temp_file("bare.csv", weighted_csv(Rows::WithoutWeights));
  const json with = select_json(fmt::format(
      "'{}' --sample-weight w --method lasso-top --k 2 --lambda2 0.01 --tol 1e-14", weighted));
  const json same = select_json(
      fmt::format("'{}' --method lasso-top --k 2 --lambda2 0.01 --tol 1e-14", expanded));
  const json ignored = select_json(
      fmt::format("'{}' --numeric w --method lasso-top --k 2 --lambda2 0.01", weighted));
  ASSERT_FALSE(with.is_null() || same.is_null() || ignored.is_null());
  EXPECT_EQ(with["selected_names"], json({"a", "b"}));
  EXPECT_EQ(with["scores"].size(), 4u);  // w is no feature
  EXPECT_EQ(with["selected"], same["selected"]);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_NEAR(with["scores"][j].get<double>(), same["scores"][j].get<double>(), 1e-9)
        << "column " << j;
  }
  // Unweighted, the junk rows pull e in.
  const auto chosen = ignored["selected"].get<std::set<int>>();
  EXPECT_TRUE(chosen.count(3) == 1) << ignored["selected"].dump();

  // The same weights from a file of one weight per row.
  std::string weights = "weight\n";
  for (int i = 0; i < 240; ++i) weights += fmt::format("{}\n", planted_weight(i));
  const std::string file = write_temp_file("weights.txt", weights);
  const json from_file = select_json(fmt::format(
      "'{}' --weight-file '{}' --method lasso-top --k 2 --lambda2 0.01 --tol 1e-14", bare, file));
  ASSERT_FALSE(from_file.is_null());
  EXPECT_EQ(from_file["scores"], with["scores"]);
  // As many weights as rows, or a clear refusal.
  const CommandResult count = run_cli(
      fmt::format("select '{}' --weight-file '{}' --method lasso --k 2 -q", expanded, file));
  EXPECT_EQ(count.exit_code, 1) << count.err;
  EXPECT_TRUE(contains(count.err, "240 weights for the 200 rows")) << count.err;
}

TEST(SampleWeightsCli, EvaluateScoresWithTheWeights) {
  const std::string weighted =
      write_temp_file("weighted-eval.csv", weighted_csv(Rows::WithWeights));
  const CommandResult run = run_cli(fmt::format(
      "evaluate '{}' --sample-weight w --method lasso-top,random-forest --k 2 --seeds 2 "
      "--protocol mae --json -q",
      weighted));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(run.out);
  for (const auto& entry : report["runs"]) {
    EXPECT_EQ(entry["selected"].get<std::set<int>>(), (std::set<int>{0, 1})) << entry.dump();
  }
}

TEST(SampleWeightsCli, BadWeightsAreRefusedNamingTheFileAndRow) {
  const std::string bad =
      write_temp_file("bad-weights.csv", "a,b,w,y\n1,2,1,0\n2,1,-3,1\n3,3,1,0\n4,1,2,1\n");
  const auto refused = [](const std::string& args) {
    const CommandResult run = run_cli("select " + args + " -q");
    EXPECT_NE(run.exit_code, 0) << args;
    return run.err;
  };
  EXPECT_TRUE(contains(refused(fmt::format("'{}' --sample-weight w --method lasso --k 1", bad)),
                       "weight column 'w': the weight of row 2 is -3"));
  EXPECT_TRUE(contains(refused(fmt::format("'{}' --sample-weight v --method lasso --k 1", bad)),
                       "no column 'v' for --sample-weight"));
  const std::string zeros = write_temp_file("zero-weights.txt", "0\n0\n0\n0\n");
  EXPECT_TRUE(
      contains(refused(fmt::format("'{}' --weight-file '{}' --method lasso --k 1", bad, zeros)),
               "every sample weight is 0"));
  const std::string nan = write_temp_file("nan-weights.txt", "1\nnan\n1\n1\n");
  EXPECT_TRUE(
      contains(refused(fmt::format("'{}' --weight-file '{}' --method lasso --k 1", bad, nan)),
               "nan-weights.txt: line 2"));
  EXPECT_TRUE(
      contains(refused(fmt::format(
                   "'{}' --class-weight balanced --task regression --method lasso --k 1", bad)),
               "--class-weight needs a class target"));
  const std::string classes = write_temp_file("classes.csv", "a,b,y\n1,2,x\n2,1,z\n3,3,x\n4,1,z\n");
  const std::string unknown = write_temp_file("class-weights.csv", "class,weight\nq,2\n");
  EXPECT_TRUE(contains(
      refused(fmt::format("'{}' --class-weight '{}' --method lasso --k 1", classes, unknown)),
      "class-weights.csv: line 2: no class 'q'"));
  EXPECT_TRUE(
      contains(refused(fmt::format("'{}' --sample-weight w --weight-file '{}' --method lasso --k 1",
                                   bad, zeros)),
               "excludes"));
}

}  // namespace
}  // namespace topkfs::test
