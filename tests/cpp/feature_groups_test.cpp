// Groups of columns selected whole (--groups FILE, data/feature_groups.hpp):
// the file's rules and errors, a planted grouped problem through select,
// transform and evaluate, and the result file's groups.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/feature_groups.hpp"
#include "topkfs/io/result_json.hpp"

namespace topkfs::test {
namespace {

using nlohmann::json;

// 300 rows: y = a1 + a2 - 2 c + noise; a1, a2 form group "alpha", d1, d2, d3
// group "delta" (noise), c and e stand alone.
const std::string& grouped_csv() {
  static const std::string path = [] {
    Rng rng(5);
    std::string text = "a1,a2,c,d1,d2,d3,e,y\n";
    for (int i = 0; i < 300; ++i) {
      const double a1 = rng.normal(), a2 = rng.normal(), c = rng.normal();
      const double y = a1 + a2 - 2 * c + 0.3 * rng.normal();
      text += fmt::format("{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", a1, a2, c,
                          rng.normal(), rng.normal(), rng.normal(), rng.normal(), y);
    }
    return write_temp_file("grouped.csv", text);
  }();
  return path;
}

const std::string& groups_file() {
  static const std::string path = write_temp_file(
      "groups.csv", "column,group\na1,alpha\n1,alpha\nd1,delta\nd2,delta\nd3,delta\n");
  return path;
}

TEST(FeatureGroups, TheFileNamesColumnsByNameOrIndexAndLeavesTheRestAlone) {
  const Dataset data = read_dataset(grouped_csv());
  const FeatureGroups groups = read_feature_groups(groups_file(), data);
  EXPECT_EQ(groups.names, (std::vector<std::string>{"alpha", "c", "delta", "e"}));
  EXPECT_EQ(groups.columns, (std::vector<std::vector<std::int64_t>>{{0, 1}, {2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(groups.columns_of({2, 0}), (std::vector<std::int64_t>{3, 4, 5, 0, 1}));
}

TEST(FeatureGroups, BadFilesAreRefusedNamingTheLine) {
  const Dataset data = read_dataset(grouped_csv());
  const auto refused = [&](const std::string& name, const std::string& text) {
    return error_of<DataError>([&] { read_feature_groups(write_temp_file(name, text), data); });
  };
  EXPECT_TRUE(contains(refused("g1.csv", "a1,x\nzz,y\n"), "g1.csv: line 2: no column 'zz'"));
  EXPECT_TRUE(contains(refused("g2.csv", "a1,x\na1,y\n"),
                       "g2.csv: line 2: column 'a1' is already in group 'x' (line 1)"));
  EXPECT_TRUE(contains(refused("g3.csv", "a1\n"), "g3.csv: line 1: 'a1' is not 'column,group'"));
  EXPECT_TRUE(contains(refused("g4.csv", "99,x\n"), "no column '99'"));
  EXPECT_TRUE(contains(error_of<DataError>([&] { read_feature_groups("/nonexistent.csv", data); }),
                       "cannot open the groups file"));
}

TEST(FeatureGroups, SelectChoosesGroupsAndTransformWritesTheirColumns) {
  const std::string out = in_temp("grouped.json");
  const CommandResult run =
      run_cli(fmt::format("select '{}' --groups '{}' --method lasso-top --k 2 -q -o '{}'",
                          grouped_csv(), groups_file(), out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = json::parse(read_text(out));
  EXPECT_EQ(result["k"], 2);
  EXPECT_EQ(result["scores"].size(), 4u);
  EXPECT_EQ(std::set<std::string>(result["selected_names"].begin(), result["selected_names"].end()),
            (std::set<std::string>{"alpha", "c"}));
  EXPECT_EQ(result["selected_columns"].size(), 3u);
  EXPECT_EQ(result["groups"]["names"][2], "delta");
  const SelectionResult back = read_selection(out);
  ASSERT_TRUE(back.groups.has_value());
  EXPECT_EQ(back.selected_columns().size(), 3u);

  const std::string reduced = in_temp("grouped_reduced.csv");
  const CommandResult transform =
      run_cli(fmt::format("transform '{}' -s '{}' -o '{}'", grouped_csv(), out, reduced));
  ASSERT_EQ(transform.exit_code, 0) << transform.err;
  const std::string header = read_text(reduced).substr(0, read_text(reduced).find('\n'));
  EXPECT_TRUE(header == "a1,a2,c,y" || header == "c,a1,a2,y") << header;
}

TEST(FeatureGroups, EvaluateSelectsGroupsAndDetectionRefusesThem) {
  const CommandResult run = run_cli(
      fmt::format("evaluate '{}' --groups '{}' --method lasso-top,random-forest --k 1,2 --seeds 2 "
                  "--protocol mae --json -q",
                  grouped_csv(), groups_file()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Each run selects groups (alpha = 0, c = 1 of 4) and is scored on all
  // their columns: with both, only the noise is left.
  const json report = json::parse(run.out);
  for (const auto& entry : report["runs"]) {
    if (entry["method"] != "lasso-top" || entry["k"] != 2) continue;
    EXPECT_EQ(std::set<int>(entry["selected"].begin(), entry["selected"].end()),
              (std::set<int>{0, 1}))
        << entry.dump();
    EXPECT_LT(entry["score"].get<double>(), 0.4) << entry.dump();
  }
  const CommandResult detection = run_cli(
      fmt::format("evaluate '{}' --groups '{}' --method lasso-top --k 2 --protocol detection -q",
                  grouped_csv(), groups_file()));
  EXPECT_EQ(detection.exit_code, 2) << detection.err;
  EXPECT_TRUE(contains(detection.err, "--protocol detection appends noise copies"))
      << detection.err;
}

TEST(FeatureGroups, AResultWithBadGroupsIsRefused) {
  const std::string out = in_temp("grouped_bad.json");
  ASSERT_EQ(run_cli(fmt::format("select '{}' --groups '{}' --method lasso --k 1 -q -o '{}'",
                                grouped_csv(), groups_file(), out))
                .exit_code,
            0);
  json result = json::parse(read_text(out));
  result["groups"]["columns"][0] = json::array({0, 2});  // column 2 is also group "c"
  const std::string edited = write_temp_file("grouped_edited.json", result.dump());
  const std::string message = error_of<DataError>([&] { read_selection(edited); });
  EXPECT_TRUE(contains(message, "group 'c' holds column 2, outside 0..6 or in another group"))
      << message;
}

TEST(KPercentage, CountsColumnsOrGroups) {
  const auto k_of = [](const std::string& extra) {
    const CommandResult run =
        run_cli(fmt::format("select '{}' {} --method lasso --json -q", grouped_csv(), extra));
    EXPECT_EQ(run.exit_code, 0) << extra << ": " << run.err;
    return run.exit_code == 0 ? json::parse(run.out)["k"].get<int>() : -1;
  };
  EXPECT_EQ(k_of("--k 30%"), 2);  // of 7 columns, rounded
  EXPECT_EQ(k_of("--k 1%"), 1);   // at least one
  EXPECT_EQ(k_of("--k 100%"), 7);
  EXPECT_EQ(k_of(fmt::format("--groups '{}' --k 50%", groups_file())), 2);  // of 4 groups
  for (const char* bad : {"0", "150%", "0%", "2.5", "ten"}) {
    const CommandResult run =
        run_cli(fmt::format("select '{}' --k {} --method lasso -q", grouped_csv(), bad));
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_TRUE(contains(run.err, fmt::format("--k {}: takes a whole number from 1", bad)))
        << run.err;
  }
}

}  // namespace
}  // namespace topkfs::test
