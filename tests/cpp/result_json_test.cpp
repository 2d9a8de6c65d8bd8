#include "topkfs/io/result_json.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <fstream>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/version.hpp"

namespace topkfs {
namespace {

SelectionResult sample_result() {
  SelectionResult result;
  result.method = "dnn-top";
  result.k = 2;
  result.scores = {0.1, 0.9, 0.5, 0.9};
  finish_selection(result, {"a", "b", "c", "d"});
  result.history = {{1, 0.7, 0.8, 1.5}, {2, 0.5, std::nullopt, 1.25}};
  result.fit_seconds = 2.75;
  result.options = {{"seed", 7}, {"lambda3", 1.0}};
  result.data = {"data.csv", "csv", 100, 4, "classes", {"a", "b", "c", "d"}};
  result.notes = {"learned from all 100 rows"};
  return result;
}

TEST(Ranking, DescendingScoresTiesToTheLowerIndex) {
  EXPECT_EQ(rank_by_score({0.1, 0.9, 0.5, 0.9}), (std::vector<std::int64_t>{1, 3, 2, 0}));
  EXPECT_EQ(rank_by_score({std::nan(""), 1.0, 0.0}), (std::vector<std::int64_t>{1, 2, 0}));
}

TEST(Ranking, FinishSelectionTakesTheTopK) {
  const SelectionResult result = sample_result();
  EXPECT_EQ(result.selected, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(result.selected_names, (std::vector<std::string>{"b", "d"}));
  SelectionResult bad = sample_result();
  bad.k = 5;
  EXPECT_THROW(finish_selection(bad, {"a", "b", "c", "d"}), OptionError);
}

TEST(ResultJson, RoundTripKeepsEveryField) {
  const std::string path = test::temp_dir() + "/result.json";
  write_selection(path, sample_result());
  const SelectionResult back = read_selection(path);
  const SelectionResult original = sample_result();
  EXPECT_EQ(back.method, original.method);
  EXPECT_EQ(back.k, original.k);
  EXPECT_EQ(back.selected, original.selected);
  EXPECT_EQ(back.selected_names, original.selected_names);
  EXPECT_EQ(back.ranking, original.ranking);
  EXPECT_EQ(back.scores, original.scores);
  ASSERT_EQ(back.history.size(), 2u);
  EXPECT_EQ(back.history[0].val_loss, 0.8);
  EXPECT_FALSE(back.history[1].val_loss.has_value());
  EXPECT_EQ(back.history[1].seconds, 1.25);
  EXPECT_EQ(back.fit_seconds, 2.75);
  EXPECT_EQ(back.options, original.options);
  EXPECT_EQ(back.data.path, "data.csv");
  EXPECT_EQ(back.data.columns, 4);
  EXPECT_EQ(back.data.feature_names, original.data.feature_names);
  EXPECT_EQ(back.notes, original.notes);
  EXPECT_FALSE(test::path_exists(path + ".tmp" + std::to_string(::getpid())));
}

TEST(ResultJson, NamesTheVersionThatWroteIt) {
  EXPECT_EQ(to_json(sample_result()).at("version"), std::string(kVersion));
  // A file without it (written before the field existed) still reads.
  nlohmann::json old = to_json(sample_result());
  old.erase("version");
  const std::string path = test::write_temp_file("no_version.json", old.dump());
  EXPECT_EQ(read_selection(path).method, "dnn-top");
}

TEST(ResultJson, MissingOrInconsistentFieldsAreNamed) {
  nlohmann::json json = to_json(sample_result());
  json.erase("ranking");
  try {
    selection_from_json(json, "r.json");
    FAIL() << "a result without 'ranking' was accepted";
  } catch (const DataError& error) {
    EXPECT_NE(std::string(error.what()).find("'ranking'"), std::string::npos) << error.what();
  }
  json = to_json(sample_result());
  json["k"] = 3;
  EXPECT_THROW(selection_from_json(json, "r.json"), DataError);
  json = to_json(sample_result());
  json["selected"] = {1, 9};
  EXPECT_THROW(selection_from_json(json, "r.json"), DataError);
  json = to_json(sample_result());
  json["scores"] = "high";
  EXPECT_THROW(selection_from_json(json, "r.json"), DataError);
}

TEST(ResultJson, NotJsonIsADataError) {
  const std::string path = test::write_temp_file("broken.json", "{\"method\": ");
  EXPECT_THROW(read_selection(path), DataError);
  EXPECT_THROW(read_selection(test::temp_dir() + "/absent.json"), FileError);
}

TEST(ResultJson, FailedWriteLeavesNoFile) {
  const std::string path = test::temp_dir() + "/no-such-dir/result.json";
  EXPECT_THROW(write_selection(path, sample_result()), FileError);
  EXPECT_FALSE(test::path_exists(path));
}

}  // namespace
}  // namespace topkfs
