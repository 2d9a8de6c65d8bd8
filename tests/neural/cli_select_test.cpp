// `topkfs select`, `transform` and `methods` as a user runs them: exit codes,
// what goes to stdout and stderr, the result file and the reduced data.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

using nlohmann::json;
using test::run_cli;
using test::temp_dir;

constexpr int kRows = 300;
constexpr int kFeatures = 8;

// 300 rows, features f0..f7 with three decimals, and a text label that
// depends on f2 and f5.
std::string fixture_csv(int features) {
  Rng rng(2024);
  std::string text;
  for (int j = 0; j < features; ++j) text += fmt::format("f{},", j);
  text += "label\n";
  for (int i = 0; i < kRows; ++i) {
    std::vector<double> row(static_cast<std::size_t>(features));
    for (auto& v : row) v = std::round(rng.normal() * 1000.0) / 1000.0;
    for (double v : row) text += fmt::format("{:.3f},", v);
    const bool yes = features > 5 ? row[2] + row[5] > 0 : row[0] > 0;
    text += yes ? "yes\n" : "no\n";
  }
  return text;
}

const std::string& data_csv() {
  static const std::string path = test::write_temp_file("cli_data.csv", fixture_csv(kFeatures));
  return path;
}

std::string shell_quoted(const std::string& path) { return "'" + path + "'"; }

// Options that keep each run well under a second.
// --min-steps 0: exactly 3 epochs, even on this small table.
const std::string kFast = "--epochs 3 --min-steps 0 --hidden 16 --threads 1 --seed 1";

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

std::string fresh_path(const std::string& name) {
  const std::string path = temp_dir() + "/" + name;
  std::remove(path.c_str());
  return path;
}

// One successful selection shared by several tests (written once).
struct SelectRun {
  test::CommandResult command;
  std::string output;
  json result;
};

const SelectRun& quiet_selection() {
  static const SelectRun run = [] {
    SelectRun r;
    r.output = fresh_path("result.json");
    r.command = run_cli(fmt::format("select {} --method dnn-top --k 3 {} --output {} --quiet",
                                    shell_quoted(data_csv()), kFast, shell_quoted(r.output)));
    if (test::path_exists(r.output)) r.result = json::parse(test::read_text(r.output));
    return r;
  }();
  return run;
}

TEST(CliSelectTest, WritesEveryFieldOfTheResultFormat) {
  const SelectRun& run = quiet_selection();
  ASSERT_EQ(run.command.exit_code, 0) << run.command.err;
  ASSERT_TRUE(run.result.is_object());
  const json& r = run.result;
  for (const char* field :
       {"format", "method", "k", "selected", "selected_names", "ranking", "scores", "history",
        "fit_seconds", "options", "data", "notes", "warnings"}) {
    EXPECT_TRUE(r.contains(field)) << field;
  }
  EXPECT_EQ(r.at("method"), "dnn-top");
  EXPECT_EQ(r.at("k"), 3);

  const auto selected = r.at("selected").get<std::vector<std::int64_t>>();
  const auto names = r.at("selected_names").get<std::vector<std::string>>();
  ASSERT_EQ(selected.size(), 3u);
  ASSERT_EQ(names.size(), 3u);
  for (std::size_t i = 0; i < selected.size(); ++i) {
    EXPECT_EQ(names[i], fmt::format("f{}", selected[i]));
  }

  auto ranking = r.at("ranking").get<std::vector<std::int64_t>>();
  ASSERT_EQ(ranking.size(), static_cast<std::size_t>(kFeatures));
  EXPECT_TRUE(std::equal(selected.begin(), selected.end(), ranking.begin()));
  const auto scores = r.at("scores").get<std::vector<double>>();
  ASSERT_EQ(scores.size(), static_cast<std::size_t>(kFeatures));
  for (std::size_t i = 1; i < ranking.size(); ++i) {
    EXPECT_GE(scores[static_cast<std::size_t>(ranking[i - 1])],
              scores[static_cast<std::size_t>(ranking[i])]);
  }
  std::sort(ranking.begin(), ranking.end());
  std::vector<std::int64_t> all(kFeatures);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(ranking, all) << "the ranking is not a permutation of the columns";

  const json& history = r.at("history");
  ASSERT_TRUE(history.is_array());
  ASSERT_GE(history.size(), 1u);
  ASSERT_LE(history.size(), 3u);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const json& entry = history[i];
    EXPECT_EQ(entry.at("epoch"), static_cast<int>(i + 1));
    EXPECT_TRUE(entry.at("loss").is_number());
    EXPECT_TRUE(entry.at("val_loss").is_number());  // 10% validation by default
    EXPECT_GE(entry.at("seconds").get<double>(), 0.0);
  }
  EXPECT_GT(r.at("fit_seconds").get<double>(), 0.0);

  const json& options = r.at("options");
  EXPECT_EQ(options.at("seed"), 1);
  EXPECT_EQ(options.at("epochs"), 3);
  EXPECT_EQ(options.at("hidden"), json::array({16}));
  EXPECT_EQ(options.at("lambda3"), 1.0);

  const json& data = r.at("data");
  EXPECT_EQ(data.at("path"), data_csv());
  EXPECT_EQ(data.at("format"), "csv");
  EXPECT_EQ(data.at("rows"), kRows);
  EXPECT_EQ(data.at("columns"), kFeatures);
  EXPECT_EQ(data.at("target_kind"), "classes");
}

TEST(CliSelectTest, QuietLeavesStderrEmptyAndStdoutHoldsOnlyResults) {
  const SelectRun& run = quiet_selection();
  ASSERT_EQ(run.command.exit_code, 0) << run.command.err;
  EXPECT_EQ(run.command.err, "");
  // The human-readable summary: every line starts with one of its keys.
  std::stringstream lines(run.command.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    bool known = false;
    for (const char* key :
         {"method ", "k ", "selected ", "columns ", "epochs ", "fit time ", "note ", "warning "}) {
      known = known || line.rfind(key, 0) == 0;
    }
    EXPECT_TRUE(known) << "unexpected line on stdout: " << line;
  }
  EXPECT_GE(count, 4);
  EXPECT_NE(run.command.out.find("method      dnn-top"), std::string::npos) << run.command.out;
}

TEST(CliSelectTest, QuickEpochsDoNotEachPrintALine) {
  // 300 epochs of a few milliseconds: the log keeps the first and the last
  // and at most one every 2 s between them, not 300 lines.
  const auto command = run_cli(fmt::format(
      "select {} --method dnn-top --k 2 --epochs 300 --min-steps 0 --hidden 16 --threads 1 "
      "--seed 1 --patience 1000",
      shell_quoted(data_csv())));
  ASSERT_EQ(command.exit_code, 0) << command.err;
  std::istringstream err(command.err);
  int epoch_lines = 0;
  for (std::string line; std::getline(err, line);) epoch_lines += line.rfind("epoch ", 0) == 0;
  EXPECT_NE(command.err.find("epoch 1/300 "), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("epoch 300/300 "), std::string::npos) << command.err;
  EXPECT_LT(epoch_lines, 30) << command.err;
}

TEST(CliSelectTest, ProgressGoesToStderrAndJsonToStdout) {
  const auto command = run_cli(
      fmt::format("select {} --method dfs --k 2 {} --json", shell_quoted(data_csv()), kFast));
  ASSERT_EQ(command.exit_code, 0) << command.err;
  // --json: stdout is exactly one JSON document.
  json result;
  ASSERT_NO_THROW(result = json::parse(command.out)) << command.out;
  EXPECT_EQ(result.at("method"), "dfs");
  EXPECT_EQ(result.at("selected").size(), 2u);
  EXPECT_EQ(result.at("options").at("lambda3"), 0.0);
  // Without --quiet the per-epoch progress is on stderr (not a terminal here).
  EXPECT_NE(command.err.find("epoch 1/3"), std::string::npos) << command.err;
  EXPECT_EQ(command.out.find("epoch 1/3"), std::string::npos);
}

void expect_usage_error_without_output(const std::string& args, const std::string& message_part) {
  const std::string output = fresh_path("should_not_exist.json");
  const auto command = run_cli(args + " --output " + shell_quoted(output));
  EXPECT_EQ(command.exit_code, 2) << command.err;
  EXPECT_NE(command.err.find(message_part), std::string::npos) << command.err;
  EXPECT_EQ(command.err.rfind("topkfs: error: ", 0), 0u) << command.err;
  EXPECT_FALSE(test::path_exists(output)) << "a failed run left " << output;
}

TEST(CliSelectTest, KOutOfRangeIsAUsageError) {
  expect_usage_error_without_output(
      fmt::format("select {} --method dnn-top --k 0 {}", shell_quoted(data_csv()), kFast), "--k 0");
  expect_usage_error_without_output(
      fmt::format("select {} --method dnn-top --k 9 {}", shell_quoted(data_csv()), kFast),
      "8 feature columns");
}

TEST(CliSelectTest, UnknownMethodListsTheMethods) {
  const std::string output = fresh_path("should_not_exist.json");
  const auto command = run_cli(fmt::format("select {} --method nope --k 2 --output {}",
                                           shell_quoted(data_csv()), shell_quoted(output)));
  EXPECT_EQ(command.exit_code, 2);
  EXPECT_NE(command.err.find("nope"), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("dnn-top"), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("dfs"), std::string::npos) << command.err;
  EXPECT_FALSE(test::path_exists(output));
}

TEST(CliSelectTest, OptionThatDoesNotApplyIsAUsageError) {
  expect_usage_error_without_output(
      fmt::format("select {} --method dfs --k 2 --lambda3 2", shell_quoted(data_csv())), "lambda3");
}

TEST(CliSelectTest, MalformedOptionValueIsAUsageError) {
  expect_usage_error_without_output(
      fmt::format("select {} --method dnn-top --k 2 --epochs many", shell_quoted(data_csv())),
      "epochs");
}

// Stability selection: the frequencies in the result (read back by
// `transform`'s reader) and as a picture.
TEST(CliSelectTest, RestartsWriteTheFrequencyAndItsPicture) {
  const std::string output = fresh_path("restarts.json");
  const std::string picture = fresh_path("restarts.png");
  const auto command = run_cli(
      fmt::format("select {} --method dnn-top --k 2 {} --restarts 3 --subsample 0.5 --output {} "
                  "--frequency-map {} --quiet",
                  shell_quoted(data_csv()), kFast, shell_quoted(output), shell_quoted(picture)));
  ASSERT_EQ(command.exit_code, 0) << command.err;
  const json result = json::parse(test::read_text(output));
  const auto frequency = result.at("frequency").get<std::vector<double>>();
  ASSERT_EQ(frequency.size(), static_cast<std::size_t>(kFeatures));
  EXPECT_DOUBLE_EQ(std::accumulate(frequency.begin(), frequency.end(), 0.0), 2.0);
  for (const double f : frequency) {
    EXPECT_TRUE(f == 0.0 || std::abs(f * 3 - std::round(f * 3)) < 1e-12) << f;
  }
  EXPECT_EQ(test::read_text(picture).substr(1, 3), "PNG");
  const auto reduced =
      run_cli(fmt::format("transform {} --selection {} --output-data {}", shell_quoted(data_csv()),
                          shell_quoted(output), shell_quoted(fresh_path("restarts.csv"))));
  EXPECT_EQ(reduced.exit_code, 0) << reduced.err;
}

TEST(CliSelectTest, FrequencyMapWithoutRestartsIsAUsageError) {
  expect_usage_error_without_output(
      fmt::format("select {} --method dnn-top --k 2 {} --frequency-map {}",
                  shell_quoted(data_csv()), kFast, shell_quoted(fresh_path("no_map.png"))),
      "--restarts");
}

TEST(CliSelectTest, MissingDataFileFailsWithoutOutput) {
  const std::string missing = temp_dir() + "/no_such_data.csv";
  const std::string output = fresh_path("should_not_exist.json");
  const auto command = run_cli(fmt::format("select {} --method dnn-top --k 2 --output {}",
                                           shell_quoted(missing), shell_quoted(output)));
  EXPECT_EQ(command.exit_code, 1) << command.err;
  EXPECT_NE(command.err.find("no_such_data.csv"), std::string::npos) << command.err;
  EXPECT_FALSE(test::path_exists(output));
}

TEST(CliTransformTest, ReducesDataToTheSelectedColumns) {
  const SelectRun& run = quiet_selection();
  ASSERT_EQ(run.command.exit_code, 0) << run.command.err;
  const auto selected = run.result.at("selected").get<std::vector<std::int64_t>>();
  const std::string reduced = fresh_path("reduced.csv");
  const auto command =
      run_cli(fmt::format("transform {} --selection {} --output-data {}", shell_quoted(data_csv()),
                          shell_quoted(run.output), shell_quoted(reduced)));
  ASSERT_EQ(command.exit_code, 0) << command.err;

  const auto original = read_csv(data_csv());
  const auto rows = read_csv(reduced);
  ASSERT_EQ(rows.size(), original.size());
  std::vector<std::string> header;
  for (auto column : selected) header.push_back(fmt::format("f{}", column));
  header.push_back("label");
  EXPECT_EQ(rows[0], header);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), selected.size() + 1) << "line " << i + 1;
    for (std::size_t j = 0; j < selected.size(); ++j) {
      const double expected = std::stod(original[i][static_cast<std::size_t>(selected[j])]);
      EXPECT_NEAR(std::stod(rows[i][j]), expected, 1e-6) << "line " << i + 1 << ", column " << j;
    }
    EXPECT_EQ(rows[i].back(), original[i].back()) << "line " << i + 1;
  }
}

TEST(CliTransformTest, RefusesDataWithADifferentColumnCount) {
  const SelectRun& run = quiet_selection();
  ASSERT_EQ(run.command.exit_code, 0) << run.command.err;
  const std::string narrow = test::write_temp_file("cli_narrow.csv", fixture_csv(kFeatures - 1));
  const std::string reduced = fresh_path("reduced_narrow.csv");
  const auto command =
      run_cli(fmt::format("transform {} --selection {} --output-data {}", shell_quoted(narrow),
                          shell_quoted(run.output), shell_quoted(reduced)));
  EXPECT_EQ(command.exit_code, 1) << command.err;
  EXPECT_NE(command.err.find("7 feature columns"), std::string::npos) << command.err;
  EXPECT_NE(command.err.find("8 columns"), std::string::npos) << command.err;
  EXPECT_FALSE(test::path_exists(reduced));
}

TEST(CliMethodsTest, ListsTheNeuralMethodsAndTheirOptions) {
  const auto command = run_cli("methods");
  ASSERT_EQ(command.exit_code, 0) << command.err;
  EXPECT_NE(command.out.find("dnn-top\n"), std::string::npos) << command.out;
  EXPECT_NE(command.out.find("dfs\n"), std::string::npos) << command.out;
  EXPECT_NE(command.out.find("--lambda3"), std::string::npos) << command.out;
  EXPECT_NE(command.out.find("--epochs"), std::string::npos) << command.out;
  EXPECT_EQ(command.err, "");
}

}  // namespace
}  // namespace topkfs
