// Command lines made by a hostile user against `evaluate`, `report` and
// `transform`, through the real command: outputs that would destroy an input
// or another output, outputs in a missing folder, numbers outside what the
// code can run, repeated grid entries and hand-edited selections are refused
// before any work, with a usage error (2) or a file error (1).
#include <gtest/gtest.h>

#include <string>

#include "cli_expectations.hpp"
#include "test_support.hpp"

namespace topkfs::test {
namespace {

// 40 rows of two classes that feature a decides: enough rows for a random
// stratified split, and linear and forest fits that take milliseconds.
std::string two_class_table() {
  std::string text = "a,b,c,y\n";
  for (int i = 0; i < 40; ++i) {
    const int label = i % 2;
    text += std::to_string(label * 3 + (i % 5)) + "," + std::to_string((i * 7) % 11) + "," +
            std::to_string((i * 3) % 5) + "," + std::to_string(label) + "\n";
  }
  return text;
}

const char* const kGrid = " --target y --k 1 --method lasso-top -q";

// A report of `evaluate` to feed `report`.
std::string evaluation_report(const std::string& name) {
  const std::string data = write_temp_file(name + "-data.csv", two_class_table());
  const std::string report = temp_dir() + "/" + name + ".json";
  const CommandResult made = run_cli("evaluate " + data + kGrid + " -o " + report);
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return report;
}

TEST(HostileOptionsCli, ReportRefusesAnOutputOnItsInputOrOnAnotherOutput) {
  const std::string report = evaluation_report("own-input");
  const std::string before = read_text(report);
  for (const char* flag : {"--csv", "--plot", "-o"}) {
    expect_message(run_cli("report " + report + " " + flag + " " + report), flag,
                   {2, {"own-input.json", "input file of REPORTS"}});
  }
  EXPECT_EQ(read_text(report), before);
  const std::string twice = temp_dir() + "/twice.out";
  expect_message(run_cli("report " + report + " -o " + twice + " --csv " + twice), "-o F --csv F",
                 {2, {"--output", "--csv", "twice.out"}});
  EXPECT_FALSE(path_exists(twice));
}

TEST(HostileOptionsCli, ReportWritesEveryOutputOrNone) {
  const std::string report = evaluation_report("all-or-none");
  const std::string json = temp_dir() + "/merged.json";
  expect_message(run_cli("report " + report + " -o " + json + " --csv " + temp_dir() +
                         "/no-such-folder/runs.csv"),
                 "--csv in a missing folder", {1, {"runs.csv", "no-such-folder", "not a folder"}});
  EXPECT_FALSE(path_exists(json)) << "the JSON was written although --csv could not be";
}

TEST(HostileOptionsCli, ReportRefusesToMergeReportsOfDifferentSplits) {
  // The merged table's one header would describe both as the first's split.
  const std::string data = write_temp_file("splits-data.csv", two_class_table());
  const std::string fifth = temp_dir() + "/fifth.json";
  const std::string half = temp_dir() + "/half.json";
  ASSERT_EQ(run_cli("evaluate " + data + kGrid + " -o " + fifth).exit_code, 0);
  ASSERT_EQ(run_cli("evaluate " + data +
                    " --target y --k 1 --method ridge-top -q --test-size 0.5 -o " + half)
                .exit_code,
            0);
  expect_message(run_cli("report " + fifth + " " + half), "test size 0.2 and 0.5",
                 {1, {"half.json", "cannot be merged", "the splits differ", "test size 0.5"}});
  const CommandResult same_split = run_cli("report " + fifth + " " + fifth);
  EXPECT_EQ(same_split.exit_code, 0) << same_split.err;
}

TEST(HostileOptionsCli, TransformTakesDataWithoutAHeader) {
  // The reader names unnamed columns x0, x1, ...: only the count can be checked.
  const std::string table = two_class_table();
  const std::string data = write_temp_file("named-data.csv", table);
  const std::string selection = temp_dir() + "/named-selection.json";
  ASSERT_EQ(run_cli("select " + data + kGrid + " -o " + selection).exit_code, 0);
  const std::string headerless =
      write_temp_file("headerless-data.csv", table.substr(table.find('\n') + 1));
  const std::string reduced = temp_dir() + "/headerless-reduced.csv";
  const CommandResult transform = run_cli("transform " + headerless + " --no-header -s " +
                                          selection + " --output-data " + reduced);
  ASSERT_EQ(transform.exit_code, 0) << transform.err;
  EXPECT_NE(read_text(reduced).find("\n"), std::string::npos);
}

// A CSV text (lines ending in '\n') without the last field of each line.
std::string without_last_column(const std::string& table) {
  std::string out;
  for (std::size_t at = 0; at < table.size();) {
    const std::size_t end = table.find('\n', at);
    out += table.substr(at, table.rfind(',', end) - at) + "\n";
    at = end + 1;
  }
  return out;
}

// New data comes without its target: read as usual its last feature became
// the target (one column short), and --no-target reads every column.
TEST(HostileOptionsCli, TransformTakesDataWithoutATargetColumn) {
  const std::string table = two_class_table();
  const std::string data = write_temp_file("labelled-data.csv", table);
  const std::string selection = temp_dir() + "/labelled-selection.json";
  ASSERT_EQ(run_cli("select " + data + " --target y --k 2 -q --method lasso-top -o " + selection)
                .exit_code,
            0);
  const std::string unlabelled = write_temp_file("unlabelled-data.csv", without_last_column(table));
  const std::string reduced = temp_dir() + "/unlabelled-reduced.csv";
  expect_message(
      run_cli("transform " + unlabelled + " -s " + selection + " -o " + reduced),
      "without --no-target",
      {1, {"unlabelled-data.csv has 2 feature columns", "made on 3 columns", "give --no-target"}});
  EXPECT_FALSE(path_exists(reduced));

  const CommandResult transform =
      run_cli("transform " + unlabelled + " --no-target -s " + selection + " -o " + reduced);
  ASSERT_EQ(transform.exit_code, 0) << transform.err;
  EXPECT_NE(transform.out.find("wrote 40 rows x 2 selected columns to"), std::string::npos)
      << transform.out;
  // The same columns, in the same order, as the labelled data gives without its target.
  const std::string labelled_reduced = temp_dir() + "/labelled-reduced.csv";
  ASSERT_EQ(run_cli("transform " + data + " --target y -s " + selection + " -o " + labelled_reduced)
                .exit_code,
            0);
  EXPECT_EQ(read_text(reduced), without_last_column(read_text(labelled_reduced)));
  // A method needs a target: select refuses such data.
  expect_message(run_cli("select " + unlabelled + " --no-target --k 1 -q --method lasso-top"),
                 "select --no-target", {1, {"unlabelled-data.csv", "target"}});
}

TEST(HostileOptionsCli, ReportErrorsNameTheReportFile) {
  expect_message(run_cli("report " + temp_dir() + "/absent-report.json"), "missing report",
                 {1, {"absent-report.json", "cannot open"}});
  std::string text = read_text(evaluation_report("edited"));
  const std::string accuracy = "\"protocol\": \"accuracy\"";
  ASSERT_NE(text.find(accuracy), std::string::npos) << text;
  text.replace(text.find(accuracy), accuracy.size(), "\"protocol\": \"bogus\"");
  expect_message(run_cli("report " + write_temp_file("bogus-protocol.json", text)),
                 "protocol bogus", {1, {"bogus-protocol.json", "unknown protocol 'bogus'"}});
}

TEST(HostileOptionsCli, EvaluateChecksEachMethodsFrequencyMapAgainstTheData) {
  // With several methods --frequency-map F.csv writes F-METHOD.csv: here the data.
  const std::string data = write_temp_file("runs-ridge-top.csv", two_class_table());
  const std::string before = read_text(data);
  expect_message(run_cli("evaluate " + data +
                         " --target y --k 1 --method lasso-top,ridge-top --protocol stability "
                         "--seeds 2 -q --frequency-map " +
                         temp_dir() + "/runs.csv"),
                 "--frequency-map onto the data",
                 {2, {"--frequency-map", "runs-ridge-top.csv", "input file of DATA"}});
  EXPECT_EQ(read_text(data), before);
  const std::string plot = temp_dir() + "/fz-lasso-top.png";
  expect_message(run_cli("evaluate " + data +
                         " --target y --k 1 --method lasso-top,ridge-top --protocol stability "
                         "--seeds 2 -q --frequency-map " +
                         temp_dir() + "/fz.png --plot " + plot),
                 "--frequency-map onto --plot", {2, {"--plot", "--frequency-map", "fz-lasso-top"}});
  EXPECT_FALSE(path_exists(plot));
}

TEST(HostileOptionsCli, AnOutputInAMissingFolderIsRefusedBeforeAnyFit) {
  const std::string data = write_temp_file("folder-data.csv", two_class_table());
  // Without -q a fit would print its progress first; the error must come first.
  expect_message(run_cli("evaluate " + data + " --target y --k 1 --method lasso-top --seeds 3 -o " +
                         temp_dir() + "/missing-folder/report.json"),
                 "evaluate -o missing/x", {1, {"report.json", "missing-folder", "does not exist"}});
  expect_message(run_cli("select " + data + " --target y --k 1 --method lasso-top -o " + data +
                         "/result.json"),
                 "select -o DATA/x", {1, {"result.json", "folder-data.csv is not a folder"}});
}

TEST(HostileOptionsCli, ThreadCountsBeyondWhatOpenMpCanStartAreUsageErrors) {
  // 65536 threads crashed libgomp inside the linear models (SIGSEGV).
  const std::string data = write_temp_file("threads-data.csv", two_class_table());
  for (const char* method : {"ridge-top", "lasso", "random-forest", "dnn-top"}) {
    expect_message(
        run_cli("select " + data + " --target y --k 1 -q --method " + method + " --threads 65536"),
        method, {2, {"--threads", "0..1024", "65536"}});
  }
  expect_message(run_cli("evaluate " + data + kGrid + " --threads 2000"), "evaluate --threads",
                 {2, {"--threads", "0..1024", "2000"}});
}

TEST(HostileOptionsCli, SeedsAndCountsAreWholeNumbersInRange) {
  const std::string data = write_temp_file("numbers-data.csv", two_class_table());
  const std::string evaluate = "evaluate " + data + kGrid;
  expect_message(run_cli(evaluate + " --seed abc"), "--seed abc", {2, {"--seed", "'abc'"}});
  expect_message(run_cli(evaluate + " --seed -1"), "--seed -1", {2, {"--seed", "'-1'"}});
  expect_message(run_cli(evaluate + " --threads 99999999999"), "--threads 99999999999",
                 {2, {"--threads", "99999999999"}});
  expect_message(run_cli(evaluate + " --model-seed -1"), "--model-seed -1",
                 {2, {"--model-seed", "non-negative integer", "'-1'"}});
  expect_message(run_cli(evaluate + " --seeds 0"), "--seeds 0", {2, {"--seeds", "at least 1"}});
  expect_message(run_cli("select " + data +
                         " --target y --k 1 -q --method lasso-top --split "
                         "random --split-seed -1"),
                 "--split-seed -1", {2, {"--split-seed", "non-negative integer"}});
}

TEST(HostileOptionsCli, AnUnknownCommandIsNamedWithTheCommands) {
  expect_message(run_cli("selct data.csv"), "selct", {2, {"unknown command 'selct'", "select"}});
}

TEST(HostileOptionsCli, RepeatedMethodsOrKsAreRefused) {
  // A repeated method ran twice and pooled its identical runs into one
  // column, which inflated its stability indices.
  const std::string data = write_temp_file("repeat-data.csv", two_class_table());
  expect_message(
      run_cli("evaluate " + data + " --target y --k 1 -q --method random-forest,random-forest"),
      "method twice", {2, {"--method", "random-forest twice"}});
  expect_message(run_cli("evaluate " + data + " --target y --k 1,2,1 -q --method lasso-top"),
                 "k twice", {2, {"--k", "1 twice"}});
}

TEST(HostileOptionsCli, SelectionsCarryTheVersionAndTransformRefusesARepeatedColumn) {
  const std::string data = write_temp_file("version-data.csv", two_class_table());
  const std::string result = temp_dir() + "/version-result.json";
  const CommandResult select =
      run_cli("select " + data + " --target y --k 2 -q --method lasso-top -o " + result);
  ASSERT_EQ(select.exit_code, 0) << select.err;
  EXPECT_NE(read_text(result).find("\"version\": \""), std::string::npos) << read_text(result);

  const std::string repeated = write_temp_file(
      "repeated-column.json",
      R"({"format": "topkfs-selection/1", "method": "m", "k": 2, "selected": [0, 0], "selected_names": ["a", "a"],
          "ranking": [0, 1, 2], "scores": [1, 0, 0], "fit_seconds": 0, "options": {},
          "history": [], "data": {"path": "x", "format": "csv", "rows": 40, "columns": 3,
                                  "target_kind": "classes"}})");
  const std::string reduced = temp_dir() + "/repeated-reduced.csv";
  expect_message(run_cli("transform " + data + " --target y --selection " + repeated +
                         " --output-data " + reduced),
                 "selected [0, 0]", {1, {"repeated-column.json", "column 0 is selected twice"}});
  EXPECT_FALSE(path_exists(reduced));
}

// "-o -" wrote a file named "-" in the working folder: the outputs are
// files, and --json is how the result reaches stdout.
TEST(HostileOptionsCli, ADashIsNotStandardOutput) {
  const std::string folder = temp_dir() + "/dash-output";
  const std::string data = write_temp_file("dash-data.csv", two_class_table());
  ASSERT_EQ(run_command("mkdir -p " + folder).exit_code, 0);
  for (const std::string& args :
       {"select " + data + kGrid + " -o -", "evaluate " + data + kGrid + " --csv -",
        "transform " + data + " --selection s.json --output-data -"}) {
    const CommandResult run = run_command("cd " + folder + " && " + TOPKFS_CLI_PATH + " " + args);
    expect_message(run, args, {2, {" -: ", "standard output"}});
  }
  EXPECT_FALSE(path_exists(folder + "/-"));
}

// A reader flag of another format changed nothing (--x-var for a CSV read
// the CSV's own columns): each is refused, naming the format DATA is.
TEST(HostileOptionsCli, AReaderFlagOfAnotherFormatIsRefused) {
  const std::string data = write_temp_file("other-format.csv", two_class_table());
  for (const char* flag : {"--x-var A", "--y-path /y", "--labels l.idx", "--in-memory"}) {
    const std::string name = std::string(flag).substr(0, std::string(flag).find(' '));
    expect_message(run_cli("info " + data + " " + flag), flag,
                   {2, {name + " is for ", "other-format.csv is read as csv"}});
  }
  EXPECT_EQ(run_cli("info " + data + " --header --delimiter ,").exit_code, 0);
  // --target named a CSV column; a LIBSVM file's target is its first field,
  // on every line.
  const std::string sparse = write_temp_file("other-format.svm", "1 1:0.5 2:1\n0 1:0.25\n");
  expect_message(run_cli("info " + sparse + " --target 1"), "--target",
                 {2, {"--target is for CSV and TSV files", "other-format.svm is read as libsvm"}});
  expect_message(
      run_cli("info " + sparse + " --no-target"), "--no-target",
      {2, {"--no-target is for every format but LIBSVM", "other-format.svm is read as libsvm"}});
}

}  // namespace
}  // namespace topkfs::test
