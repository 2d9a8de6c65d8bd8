// The reader options are parsed once, in the library (parse_read_options),
// for the command's flags and Python's keywords: each rule and its message,
// the option named by reference (option_ref, which each face spells), and
// nan "keep" taken for inspecting the data and refused for a selection, in
// both faces' words.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli_expectations.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/read_option_scope.hpp"

namespace topkfs::test {
namespace {

using Given = std::vector<std::pair<std::string, ReaderValue>>;

// A spelling no face uses, so that a message shows that its options are
// references (option_ref) that each face renders.
std::string angled(const std::string& name, const std::string&, bool) { return "<" + name + ">"; }

std::string small_csv() { return write_temp_file("parsing.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,0\n"); }

ReadOptions parsed(const Given& given, ReadPurpose purpose = ReadPurpose::Select) {
  return parse_read_options(small_csv(), given, purpose);
}

std::string refusal(const Given& given, ReadPurpose purpose = ReadPurpose::Select) {
  try {
    parsed(given, purpose);
  } catch (const OptionError& error) {
    return render_option_refs(error.what(), angled);
  }
  ADD_FAILURE() << "no OptionError";
  return "";
}

TEST(ReadOptionParsing, NothingGivenIsTheDefaults) {
  const ReadOptions options = parsed({});
  const ReadOptions defaults;
  EXPECT_EQ(options.format, defaults.format);
  EXPECT_EQ(options.nan, defaults.nan);
  EXPECT_EQ(options.header, HeaderMode::Auto);
  EXPECT_FALSE(options.delimiter.has_value());
  EXPECT_EQ(options.max_levels, defaults.max_levels);
  EXPECT_TRUE(options.map);
}

TEST(ReadOptionParsing, EachOptionSetsItsField) {
  const ReadOptions options = parsed({{"format", "csv"},
                                      {"target", std::vector<std::string>{"y", "b"}},
                                      {"header", true},
                                      {"delimiter", ","},
                                      {"nan", "drop"},
                                      {"categorical", "a"},
                                      {"numeric", std::vector<std::string>{"b"}},
                                      {"max-levels", "7"},
                                      {"na-values", std::vector<std::string>{"-", "none"}},
                                      {"task", "regression"},
                                      {"max-auto-classes", "12"}});
  EXPECT_EQ(options.format, Format::Csv);
  EXPECT_EQ(options.target, (std::vector<std::string>{"y", "b"}));
  EXPECT_EQ(options.header, HeaderMode::Yes);
  EXPECT_EQ(options.delimiter, ',');
  EXPECT_EQ(options.nan, NanPolicy::Drop);
  EXPECT_EQ(options.categorical, std::vector<std::string>{"a"});  // one text: a list of one
  EXPECT_EQ(options.numeric, std::vector<std::string>{"b"});
  EXPECT_EQ(options.max_levels, 7);
  EXPECT_EQ(options.na_values, (std::vector<std::string>{"-", "none"}));
  EXPECT_EQ(options.task, TaskHint::Regression);
  EXPECT_EQ(options.max_auto_classes, 12);
  EXPECT_EQ(parsed({{"header", false}}).header, HeaderMode::No);
  EXPECT_TRUE(parsed({{"no-target", true}}).no_target);
}

TEST(ReadOptionParsing, OptionsOfOtherFormatsSetTheirFieldsWhereTheyApply) {
  // With the format given, the file is not looked at.
  const ReadOptions npz =
      parsed({{"format", "npz"}, {"x-var", "F"}, {"y-var", "T"}, {"in-memory", true}});
  EXPECT_EQ(npz.x_var, "F");
  EXPECT_EQ(npz.y_var, "T");
  EXPECT_FALSE(npz.map);
  const ReadOptions hdf5 = parsed({{"format", "hdf5"}, {"x-path", "/f"}, {"y-path", "/t"}});
  EXPECT_EQ(hdf5.x_path, "/f");
  EXPECT_EQ(hdf5.y_path, "/t");
  EXPECT_EQ(parsed({{"format", "idx"}, {"labels", "l.idx"}}).labels_path, "l.idx");
  EXPECT_EQ(parsed({{"format", "npy"}, {"y-file", "y.npy"}}).y_file, "y.npy");
}

TEST(ReadOptionParsing, TheDelimiterIsOneCharacterOrItsName) {
  EXPECT_EQ(parsed({{"delimiter", "tab"}}).delimiter, '\t');
  EXPECT_EQ(parsed({{"delimiter", "\\t"}}).delimiter, '\t');
  EXPECT_EQ(parsed({{"delimiter", "space"}}).delimiter, ' ');
  EXPECT_EQ(parsed({{"delimiter", ";"}}).delimiter, ';');
  EXPECT_EQ(refusal({{"delimiter", "ab"}}),
            "<delimiter> takes one character (or 'tab', 'space'), not 'ab'");
  EXPECT_EQ(refusal({{"delimiter", ""}}),
            "<delimiter> takes one character (or 'tab', 'space'), not ''");
}

TEST(ReadOptionParsing, CountsAreWholeNumbersFromOne) {
  for (const char* bad : {"0", "-3", "abc", "1.5", "2147483648", "99999999999999999999", "'7'"}) {
    EXPECT_EQ(refusal({{"max-levels", bad}}),
              std::string("<max-levels> takes a whole number from 1 to 2147483647, not ") + bad);
    EXPECT_TRUE(contains(refusal({{"max-auto-classes", bad}}), "<max-auto-classes> takes"));
  }
  EXPECT_EQ(parsed({{"max-levels", "2147483647"}}).max_levels, 2147483647);
}

TEST(ReadOptionParsing, ChoicesListWhatTheyTake) {
  EXPECT_EQ(refusal({{"task", "ranking"}}),
            "<task> takes 'auto', 'classification' or 'regression', not 'ranking'");
  EXPECT_TRUE(contains(refusal({{"nan", "sometimes"}}),
                       "unknown <nan> policy 'sometimes'; choose one of impute, error, drop"));
  EXPECT_TRUE(contains(refusal({{"format", "xlsx"}}), "unknown format 'xlsx'"));
}

TEST(ReadOptionParsing, NanKeepIsForInspectingNotSelecting) {
  EXPECT_EQ(parsed({{"nan", "keep"}}, ReadPurpose::Inspect).nan, NanPolicy::Keep);
  EXPECT_EQ(refusal({{"nan", "keep"}}, ReadPurpose::Select),
            "<nan> takes impute, error or drop ('keep' is for looking at the data: it leaves "
            "missing values in, which a selection cannot take)");
  EXPECT_EQ(parsed({{"nan", "error"}}, ReadPurpose::Select).nan, NanPolicy::Error);
}

TEST(ReadOptionParsing, AnOptionForAnotherFormatOrBesideNoTargetIsNamedAsSpelled) {
  const std::string path = small_csv();
  EXPECT_EQ(refusal({{"x-var", "F"}}),
            "<x-var> is for MATLAB .mat and NPZ files; " + path + " is read as csv");
  EXPECT_EQ(refusal({{"target", "y"}, {"no-target", true}}),
            "<target> and <no-target> exclude each other: give one of them");
  // header off is the command's --no-header: the speller is asked for it.
  EXPECT_TRUE(contains(refusal({{"format", "npz"}, {"header", false}}),
                       "<no-header> is for CSV and TSV files"));
}

TEST(ReadOptionParsing, AnUnknownNameOrAValueOfTheWrongKindIsTheCallersMistake) {
  EXPECT_THROW(parsed({{"targt", "y"}}), std::invalid_argument);
  EXPECT_THROW(parsed({{"delimiter", true}}), std::invalid_argument);
  EXPECT_THROW(parsed({{"no-target", "yes"}}), std::invalid_argument);
}

TEST(ReadOptionParsing, EveryOptionIsListedWithItsKind) {
  std::vector<std::string> names;
  for (const auto& info : reader_option_infos()) names.emplace_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "format", "target", "no-target", "header", "delimiter", "nan", "categorical",
                       "numeric", "max-levels", "na-values", "task", "max-auto-classes", "x-var",
                       "y-var", "x-path", "y-path", "labels", "y-file", "in-memory"}));
}

// The command: the same rules, the options spelled as flags.
TEST(ReadOptionParsingCli, TheCommandSpellsTheLibrarysMessagesAsFlags) {
  const std::string data = small_csv();
  expect_refused(data + " --delimiter ab",
                 {2, {"--delimiter takes one character (or 'tab', 'space'), not 'ab'"}});
  expect_refused(data + " --max-levels 0",
                 {2, {"--max-levels takes a whole number from 1 to 2147483647, not 0"}});
  expect_refused(data + " --x-var F", {2, {"--x-var is for MATLAB .mat and NPZ files"}});
}

TEST(ReadOptionParsingCli, InfoTakesNanKeepAndSelectRefusesIt) {
  const std::string data = write_temp_file("parsing-nan.csv", "a,b,y\n1,,0\n3,4,1\n5,6,0\n");
  const CommandResult info = run_cli("info --json --nan keep " + data);
  EXPECT_EQ(info.exit_code, 0) << info.err;
  expect_select_refused(data + " --nan keep",
                        {2,
                         {"--nan takes impute, error or drop ('keep' is for looking at the "
                          "data"}});
  expect_message(run_cli("convert " + data + " --nan keep -o " + in_temp("never.npy")),
                 "convert --nan keep", {2, {"--nan takes impute, error or drop"}});
}

}  // namespace
}  // namespace topkfs::test
