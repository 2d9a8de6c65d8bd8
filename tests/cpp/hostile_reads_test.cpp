// What the hostile inputs of 2026-12-02 (cae50c1) found (docs/bad-input.md):
// each case is an example of a class of input that was read wrongly or
// refused for the wrong reason, checked through the command as a user meets
// it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_expectations.hpp"
#include "hand_made_files.hpp"
#include "test_support.hpp"
#include "topkfs/core/utf8_text.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

// Two classes, the first column informative, 40 rows.
std::string small_table(const std::string& name) {
  std::string text = "a,b,c,y\n";
  for (int i = 0; i < 40; ++i) {
    text += std::to_string(i % 2 + 0.01 * i) + "," + std::to_string((i * 7) % 5) + "," +
            std::to_string((i * 3) % 11) + "," + std::to_string(i % 2) + "\n";
  }
  return write_temp_file(name, text);
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

void write_json(const std::string& path, const nlohmann::json& json) {
  std::ofstream(path) << json.dump();
}

TEST(HostileReads, AnNpzWithTwoMembersOfOneNameIsRefused) {
  const std::string x =
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }", std::string(16, 0));
  const std::string path =
      write_temp_file("twice.npz", zip_bytes({{"X.npy", x}, {"Y.npy", x}, {"X.npy", x}}));
  expect_refused(path, {1, {"twice.npz", "two members named 'X'"}});
}

TEST(HostileReads, TransformChecksTheSelectionFile) {
  const std::string data = small_table("transform-data.csv");
  const std::string result = in_temp("transform-result.json");
  ASSERT_EQ(run_cli("select " + data + " --k 2 -q --method lasso-top -o " + result).exit_code, 0);
  const nlohmann::json good = read_json(result);
  const auto refused = [&](const char* name, nlohmann::json json,
                           const std::vector<std::string>& fragments) {
    const std::string path = in_temp(name);
    write_json(path, json);
    const std::string output = in_temp("never-reduced.csv");
    expect_message(run_cli("transform " + data + " --selection " + path + " -o " + output), name,
                   {1, fragments});
    EXPECT_FALSE(path_exists(output)) << name;
  };
  nlohmann::json json = good;
  json["format"] = "topkfs-selection/99";
  refused("format-99.json", json, {"'topkfs-selection/99'", "another version"});
  json = good;
  json.erase("format");
  refused("no-format.json", json, {"field 'format' is missing"});
  json = good;
  json["version"] = 3;
  refused("integer-version.json", json, {"'version'"});
  json = good;
  json["data"]["feature_names"] = {"a", "b"};
  refused("few-names.json", json, {"2 names for 3 columns"});
  json = good;
  json["selected_names"][0] = "zzz";
  refused("wrong-name.json", json, {"named 'zzz'"});
  json = good;
  json["ranking"] = {0, 0, 1};
  refused("bad-ranking.json", json, {"'ranking' is not an order"});
}

TEST(HostileReads, TransformOntoUnnamedColumnsSaysNamesWentUnchecked) {
  const std::string data = small_table("unnamed-data.csv");
  const std::string result = in_temp("unnamed-result.json");
  ASSERT_EQ(run_cli("select " + data + " --k 1 -q --method lasso-top -o " + result).exit_code, 0);
  const std::string npy = in_temp("unnamed-x.npy");
  ASSERT_EQ(
      run_cli("convert " + data + " -q --output " + npy + " --y-output " + in_temp("unnamed-y.npy"))
          .exit_code,
      0);
  const CommandResult reduced = run_cli("transform " + npy + " --no-target --selection " + result +
                                        " -o " + in_temp("unnamed-reduced.csv"));
  ASSERT_EQ(reduced.exit_code, 0) << reduced.err;
  EXPECT_TRUE(contains(reduced.out, "could not be checked")) << reduced.out;
}

TEST(HostileReads, ReportRefusesReportsThatContradictThemselves) {
  const std::string data = small_table("report-data.csv");
  const std::string report = in_temp("report.json");
  const CommandResult evaluate =
      run_cli("evaluate " + data + " --method lasso-top --k 1,2 --seeds 2 -q -o " + report);
  ASSERT_EQ(evaluate.exit_code, 0) << evaluate.err;
  const nlohmann::json good = read_json(report);
  ASSERT_EQ(run_cli("report " + report).exit_code, 0);
  const auto refused = [&](const char* name, const nlohmann::json& json, const char* fragment) {
    const std::string path = in_temp(name);
    write_json(path, json);
    expect_message(run_cli("report " + path), name, {1, {name, fragment}});
  };
  nlohmann::json json = good;
  json["ks"] = {-1, 2};
  refused("negative-k.json", json, "k = -1");
  json = good;
  json["ks"] = {2, 2};
  refused("same-k.json", json, "k = 2 twice");
  json = good;
  json["seeds"] = 0;
  refused("no-seeds.json", json, "'seeds' is 0");
  json = good;
  json["methods"][0]["per_k"][0]["mean"] = 12.5;
  refused("disagreeing.json", json, "its runs give");
  json = good;
  json["runs"].push_back(json["runs"][0]);
  refused("run-twice.json", json, "given twice");
}

TEST(HostileReads, Latin1NamesAreReadWithANoteAndWrittenAsUtf8) {
  const std::string path = write_temp_file(
      "latin1.csv", "caf\xe9,na\xefve,y\n1,2,0\n2,1,1\n3,5,0\n4,3,1\n5,2,0\n6,1,1\n");
  const Dataset data = read_dataset(path);
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"caf\xc3\xa9", "na\xc3\xafve"}));
  ASSERT_FALSE(data.notes.empty());
  EXPECT_TRUE(contains(data.notes.back(), "read as Latin-1")) << data.notes.back();
  const std::string result = in_temp("latin1-result.json");
  const CommandResult select =
      run_cli("select " + path + " --k 1 -q --method lasso-top -o " + result);
  ASSERT_EQ(select.exit_code, 0) << select.err;
  EXPECT_NO_THROW(read_json(result));
}

TEST(HostileReads, Latin1LabelsConvertOnlyTheTextsThatAreNotAscii) {
  // A LIBSVM file of 10^7 columns with one Latin-1 label held its names
  // twice while they were converted (an ASAN fuzz finding, 1.8 GB).
  const std::string path =
      write_temp_file("latin1-label.svm", "caf\xe9 1:1 20:2\nx 2:1\ncaf\xe9 3:1\nx 1:2\n");
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.feature_names.size(), 20u);
  EXPECT_EQ(data.feature_names.front(), "f1");
  EXPECT_EQ(data.feature_names.back(), "f20");
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"caf\xc3\xa9", "x"}));
  EXPECT_TRUE(is_ascii("f20"));
  EXPECT_FALSE(is_ascii("caf\xe9"));
  EXPECT_EQ(latin1_to_utf8("a\xe9\xff"), "a\xc3\xa9\xc3\xbf");
}

TEST(HostileReads, MessagesShowControlBytesAsEscapes) {
  // A NUL inside a quoted cell cut the message there; binary reached the
  // terminal as it was.
  const char text[] = "a,b,y\n1,\"4\0x\x01\",0\n2,3,1\n";
  const std::string path = write_temp_file("nul.csv", std::string(text, sizeof text - 1));
  const CommandResult info = run_cli("info " + path + " --numeric b");
  expect_message(info, "nul.csv --numeric b", {1, {"nul.csv", "4\\x00x\\x01"}});
  EXPECT_EQ(info.err.find('\0'), std::string::npos);
}

TEST(HostileReads, WrongReasonsAreTheRightOnesNow) {
  std::string idx = idx_header({2, 2});
  idx[2] = 0x0A;  // no such type code
  expect_refused(write_temp_file("odd-type-idx", idx + std::string(4, 0)),
                 {1, {"odd-type-idx", "type code 0x0A"}});
  std::string five = idx_header({1, 1, 1, 1, 1});
  expect_refused(write_temp_file("five-dims-idx", five + std::string(1, 0)),
                 {1, {"five-dims-idx", "5 dimensions"}});
  expect_refused(write_temp_file("cr.csv", "a,b,y\r1,2,0\r3,4,1\r"), {1, {"cr.csv", "CR alone"}});
  expect_refused(write_temp_file("comment.csv", "# made by hand\na,b,y\n1,2,0\n3,4,1\n"),
                 {1, {"comment.csv", "line 1 begins with '#'"}});
  expect_refused(write_temp_file("mixed.csv", "a;b;y\n1,2,0\n3;4;1\n"),
                 {1, {"mixed.csv", "mix delimiters"}});
  expect_refused(write_temp_file("huge.csv", "a,b,y\n1,1e39,0\n3,4,1\n"),
                 {1, {"huge.csv", "line 2, column 2", "beyond float32's range"}});
  expect_refused(write_temp_file("huge.svm", "0 1:1 2:1e39\n1 1:2\n"),
                 {1, {"huge.svm", "line 1", "beyond float32's range"}});
  const std::string data = small_table("reasons-data.csv");
  expect_message(run_cli("select " + data +
                         " --k 1 -q --method dnn-top --restarts 2 "
                         "--subsample 0.01"),
                 "subsample", {2, {"--subsample 0.01", "draw 0 of the"}});
  expect_message(run_cli("select " + data +
                         " --k 1 -q --method dnn-top --body cnn "
                         "--image-shape 1x3"),
                 "cnn", {2, {"at least 4x4", "not 1x3"}});
  expect_message(run_cli("select " + data + " --k 1 -q --method lasso --rank -1"), "rank",
                 {2, {"--rank must be at least 0"}});
}

TEST(HostileReads, ConvertBlockRowsAreBoundedByTheRowsAndTheMemory) {
  const std::string data = small_table("blocks-data.csv");
  const CommandResult many =
      run_cli("convert " + data + " -q --block-rows 10000000 --output " + in_temp("blocks-x.npy") +
              " --y-output " + in_temp("blocks-y.npy"));
  EXPECT_EQ(many.exit_code, 0) << many.err;
  // Read by row blocks, a table's block is what the option says.
  std::string wide = "y";
  for (int j = 0; j < 200; ++j) wide += ",c" + std::to_string(j);
  wide += "\n";
  for (int i = 0; i < 3; ++i) {
    wide += std::to_string(i % 2);
    for (int j = 0; j < 200; ++j) wide += ",1";
    wide += "\n";
  }
  const std::string wide_path = write_temp_file("blocks-wide.csv", wide);
  const CommandResult huge =
      run_cli("convert " + wide_path +
              " --target y -q --block-rows "
              "99999999999999 --output " +
              in_temp("blocks-wide-x.npy") + " --y-output " + in_temp("blocks-wide-y.npy"));
  EXPECT_EQ(huge.exit_code, 0) << huge.err;
}

TEST(HostileReads, ListsOfKAreReadStrictly) {
  const std::string data = small_table("k-list-data.csv");
  for (const char* k : {"1,,2", "0x2", "2,"}) {
    expect_message(run_cli("evaluate " + data + " --method lasso-top -q --k " + k), k,
                   {2, {"--k", "comma-separated list"}});
  }
}

TEST(HostileReads, PandasMissingMarkersAreMissingInEveryReaderOfText) {
  const std::string path =
      write_temp_file("markers.csv", "a,b,y\n1,None,0\n2,#N/A,1\n3,<NA>,0\n4,5,1\n5,6,0\n");
  const Dataset data = read_dataset(path);
  EXPECT_EQ(data.cols(), 2);
  EXPECT_TRUE(data.column_levels.empty() || data.column_levels[1].empty());
  EXPECT_TRUE(std::isnan(data.features(0, 1)));
  EXPECT_TRUE(std::isnan(data.features(2, 1)));
  EXPECT_FLOAT_EQ(data.features(3, 1), 5.0f);
}

}  // namespace
}  // namespace topkfs::test
