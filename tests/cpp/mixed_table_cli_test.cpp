// Mixed-type tables through the command, as a user with a spreadsheet's CSV
// runs it: select (k counts columns of the table, selected whole), the
// encoding in the result, --score on the encoded columns, transform of new
// data with a level never seen, evaluate, info; and the two shared tables.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs::test {
namespace {

using nlohmann::json;

// 400 rows, two classes: the class follows the text column `colour` (two of
// its four levels mean class 1) and the numeric `size`, which misses 20% of
// its cells; `shade` (text) and n1..n4 are noise, n2 with missing cells too.
const std::string& planted_csv() {
  static const std::string path = [] {
    Rng rng(11);
    const char* colours[] = {"red", "green", "blue", "grey"};
    const char* shades[] = {"light", "dark", "mid"};
    std::string text = "colour,size,shade,n1,n2,n3,n4,label\n";
    for (int i = 0; i < 400; ++i) {
      const int colour = static_cast<int>(rng.uniform_int(0, 3));
      const double size = rng.normal();
      const double logit = (colour < 2 ? 2.5 : -2.5) + 2.0 * size;
      const bool positive = rng.uniform() < 1.0 / (1.0 + std::exp(-logit));
      const bool size_missing = rng.uniform() < 0.2;
      const bool n2_missing = rng.uniform() < 0.2;
      text += fmt::format("{},{},{},{:.3f},{},{:.3f},{:.3f},{}\n", colours[colour],
                          size_missing ? "" : fmt::format("{:.3f}", size),
                          shades[rng.uniform_int(0, 2)], rng.normal(),
                          n2_missing ? "NA" : fmt::format("{:.3f}", rng.normal()), rng.normal(),
                          rng.normal(), positive ? "yes" : "no");
    }
    return write_temp_file("planted_mixed.csv", text);
  }();
  return path;
}

// The result file of random-forest's k = 2 on the planted table.
std::string forest_selection(const std::string& name) {
  const std::string out = in_temp(name);
  const CommandResult run = run_cli(
      fmt::format("select '{}' --method random-forest --k 2 -q -o '{}'", planted_csv(), out));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return out;
}

std::set<std::string> as_set(const json& names) { return {names.begin(), names.end()}; }

TEST(MixedTableCli, SelectChoosesWholeColumnsAndRecordsTheEncoding) {
  for (const char* method : {"random-forest", "elastic-net-top", "lasso"}) {
    const std::string out = in_temp(fmt::format("mixed_{}.json", method));
    const CommandResult run =
        run_cli(fmt::format("select '{}' --method {} --k 2 --split random --score -q -o '{}'",
                            planted_csv(), method, out));
    ASSERT_EQ(run.exit_code, 0) << method << ": " << run.err;
    const json result = json::parse(read_text(out));
    EXPECT_EQ(as_set(result["selected_names"]), (std::set<std::string>{"colour", "size"}))
        << method << ": " << result["selected_names"];
    EXPECT_EQ(result["k"], 2);
    EXPECT_EQ(result["scores"].size(), 7u);  // one per column of the table
    EXPECT_EQ(result["data"]["columns"], 7);
    const json& encoding = result["encoding"];
    ASSERT_EQ(encoding["columns"].size(), 7u);
    EXPECT_EQ(encoding["columns"][0]["kind"], "categorical");
    EXPECT_EQ(encoding["columns"][0]["levels"], json({"blue", "green", "grey", "red"}));
    EXPECT_EQ(encoding["columns"][1]["kind"], "numeric");
    EXPECT_TRUE(encoding["columns"][1]["indicator"].get<bool>());
    EXPECT_EQ(encoding["learned_rows"], 320);
    EXPECT_GT(result["downstream"]["value"].get<double>(), 75.0) << method;
    EXPECT_TRUE(contains(result["notes"].dump(), "encoded on the 320 rows learned from"))
        << result["notes"];
  }
}

TEST(MixedTableCli, TransformWritesTheSelectedColumnsAsReadAndNotesUnseenLevels) {
  const std::string out = forest_selection("mixed_transform.json");
  const std::string fresh = write_temp_file(
      "mixed_new.csv",
      "colour,size,shade,n1,n2,n3,n4\nred,0.5,dark,1,2,3,4\npurple,,light,1,,3,4\n");
  const std::string reduced = in_temp("mixed_reduced.csv");
  const CommandResult run =
      run_cli(fmt::format("transform '{}' --no-target -s '{}' -o '{}'", fresh, out, reduced));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = read_text(reduced);
  EXPECT_TRUE(text == "colour,size\nred,0.5\npurple,\n" ||
              text == "size,colour\n0.5,red\n,purple\n")
      << text;
  EXPECT_TRUE(contains(run.out,
                       "1 cell of the selected categorical columns hold a level the "
                       "selection never saw"))
      << run.out;
}

TEST(MixedTableCli, TransformRefusesTextWhereTheSelectionLearnedNumbers) {
  const std::string out = forest_selection("mixed_numbers.json");
  const std::string fresh = write_temp_file(
      "mixed_text_size.csv", "colour,size,shade,n1,n2,n3,n4\nred,big,dark,1,2,3,4\n");
  const CommandResult run = run_cli(
      fmt::format("transform '{}' --no-target -s '{}' -o '{}'", fresh, out, in_temp("never.csv")));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err,
                       "column 'size' holds text (e.g. 'big') but the selection learned "
                       "numbers there"))
      << run.err;
  EXPECT_FALSE(path_exists(in_temp("never.csv")));
}

TEST(MixedTableCli, EvaluateEncodesEachSplitOnItsTrainingRows) {
  const CommandResult run = run_cli(
      fmt::format("evaluate '{}' --method random-forest,elastic-net --k 1,2 --seeds 2 --json -q",
                  planted_csv()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(run.out);
  EXPECT_TRUE(contains(report.dump(), "accuracy")) << run.out.substr(0, 400);
}

TEST(MixedTableCli, InfoListsCategoricalColumnsAndMissingCells) {
  const CommandResult run = run_cli("info '" + planted_csv() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "categorical 2 columns")) << run.out;
  EXPECT_TRUE(contains(run.out, "colour     4 levels:")) << run.out;
  EXPECT_TRUE(contains(run.out, "size")) << run.out;
  const CommandResult as_json = run_cli("info --json '" + planted_csv() + "'");
  const json summary = json::parse(as_json.out);
  EXPECT_EQ(summary["categorical"].size(), 2u);
  EXPECT_GT(summary["missing_by_column"]["size"].get<int>(), 40);
  EXPECT_GT(summary["missing_by_column"]["n2"].get<int>(), 40);
}

TEST(MixedTableCli, ConvertWritesTheEncodedTableAndSelectReadsItsGroupsBack) {
  const std::string npz = in_temp("planted_mixed.npz");
  const CommandResult convert =
      run_cli(fmt::format("convert '{}' --output '{}' -q", planted_csv(), npz));
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  const std::string sidecar = in_temp("planted_mixed.encoding.json");
  ASSERT_TRUE(path_exists(sidecar));
  const json beside = json::parse(read_text(sidecar));
  EXPECT_EQ(beside["group_names"].size(), 7u);
  EXPECT_EQ(beside["encoding"]["columns"][0]["levels"], json({"blue", "green", "grey", "red"}));
  // The same selection from the encoded file as from the table (both
  // encoded on every row: --split none).
  const auto selected = [](const std::string& data) {
    const CommandResult run = run_cli(
        fmt::format("select '{}' --method random-forest --k 2 --split none --json -q", data));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.exit_code == 0 ? json::parse(run.out)["selected_names"] : json();
  };
  EXPECT_EQ(selected(npz), selected(planted_csv()));
  EXPECT_EQ(as_set(selected(npz)), (std::set<std::string>{"colour", "size"}));
  // A sidecar that no longer fits its matrix is refused, naming both.
  json stale = beside;
  stale["column_group"].erase(0);
  write_temp_file("planted_mixed.encoding.json", stale.dump());
  const CommandResult refused = run_cli(fmt::format("info '{}'", npz));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(contains(refused.err, "planted_mixed.encoding.json: describes")) << refused.err;
}

// The two real mixed tables of the shared data, as given.
TEST(MixedTableCli, SoybeanAndHouseVotesRunWithTheirTextAndEmptyCells) {
  TOPKFS_REQUIRE_SHARED_DATA("soybean");
  TOPKFS_REQUIRE_SHARED_DATA("house_votes84");
  for (const char* file : {"soybean/soybean.csv", "house_votes84/house_votes84.csv"}) {
    const CommandResult info =
        run_cli(fmt::format("info --json '{}' --target Class", shared_data(file)));
    ASSERT_EQ(info.exit_code, 0) << file << ": " << info.err;
    for (const char* method : {"random-forest", "elastic-net-top", "inffs"}) {
      const CommandResult run = run_cli(fmt::format(
          "select '{}' --target Class --method {} --k 5 --split random --score --json -q",
          shared_data(file), method));
      ASSERT_EQ(run.exit_code, 0) << file << " " << method << ": " << run.err;
      const json result = json::parse(run.out);
      EXPECT_EQ(result["selected"].size(), 5u);
      EXPECT_TRUE(result.contains("encoding"));
      EXPECT_GT(result["downstream"]["value"].get<double>(), 60.0) << file << " " << method;
    }
  }
}

}  // namespace
}  // namespace topkfs::test
