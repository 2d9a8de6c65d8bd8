// CSV/TSV reader: detection rules, quoting, targets, every error message, and
// the four shared regression datasets read through read_dataset.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::error_of;  // the message as the command shows it
using test::write_temp_file;

Dataset read_text(const std::string& name, const std::string& content, ReadOptions options = {}) {
  return read_dataset(write_temp_file(name, content), options);
}

std::vector<std::string> strings(std::initializer_list<const char*> items) {
  return std::vector<std::string>(items.begin(), items.end());
}

TEST(CsvReader, ReadsHeaderFeaturesAndLastColumnTarget) {
  const Dataset data = read_text("basic.csv", "a,b,y\n1.5,2,0.25\n-3,4e2,0.5\n5,6,0.75\n");
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_EQ(data.feature_names, strings({"a", "b"}));
  EXPECT_EQ(data.format, "csv");
  EXPECT_FLOAT_EQ(data.features(0, 0), 1.5f);
  EXPECT_FLOAT_EQ(data.features(1, 1), 400.0f);
  EXPECT_FLOAT_EQ(data.features(2, 0), 5.0f);
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_EQ(data.target_names, strings({"y"}));
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 0.25);
  EXPECT_DOUBLE_EQ(data.targets(2, 0), 0.75);
  EXPECT_TRUE(data.notes.empty());
}

TEST(CsvReader, HandlesCrlfBlanksTrailingDelimiterAndBlankLines) {
  const Dataset data = read_text(
      "messy.csv", "a , b ,y,\r\n 1 ,\t2, 0.5 ,\r\n\r\n3,4 ,0.25,\r\n  \r\n5, 6,0.125\r\n\r\n");
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_EQ(data.feature_names, strings({"a", "b"}));
  EXPECT_FLOAT_EQ(data.features(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(data.features(0, 1), 2.0f);
  EXPECT_FLOAT_EQ(data.features(2, 1), 6.0f);
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(data.targets(2, 0), 0.125);
}

TEST(CsvReader, LastLineWithoutLineEnd) {
  const Dataset data = read_text("no_eol.csv", "a,y\n1,0.5\n2,1.5");
  ASSERT_EQ(data.rows(), 2);
  EXPECT_DOUBLE_EQ(data.targets(1, 0), 1.5);
}

TEST(CsvReader, DetectsTheDelimiter) {
  struct Case {
    const char* name;
    const char* content;
  };
  const Case cases[] = {
      {"semi.txt", "a;b;y\n1;2;0.5\n3;4;1.5\n"},
      {"tab.txt", "a\tb\ty\n1\t2\t0.5\n3\t4\t1.5\n"},
      {"pipe.txt", "a|b|y\n1|2|0.5\n3|4|1.5\n"},
      {"space.txt", "  a   b  y\n 1  2    0.5\n3 4 1.5  \n"},
  };
  for (const auto& item : cases) {
    SCOPED_TRACE(item.name);
    const Dataset data = read_text(item.name, item.content);
    ASSERT_EQ(data.rows(), 2);
    ASSERT_EQ(data.cols(), 2);
    EXPECT_EQ(data.feature_names, strings({"a", "b"}));
    EXPECT_FLOAT_EQ(data.features(1, 1), 4.0f);
    EXPECT_DOUBLE_EQ(data.targets(1, 0), 1.5);
  }
}

TEST(CsvReader, GivenDelimiterWins) {
  ReadOptions options;
  options.delimiter = ';';
  // By detection this would be comma-separated with 2 columns.
  const Dataset data = read_text("given.txt", "a,1;b;y\n1;2;0.5\n3;4;1.5\n", options);
  EXPECT_EQ(data.feature_names, strings({"a,1", "b"}));
}

TEST(CsvReader, WrongDelimiterGivesOneColumnAndAHint) {
  ReadOptions options;
  options.delimiter = ';';
  const auto message = error_of<DataError>(
      [&] { read_text("wrong_delim.csv", "a,b,y\n1,2,0.5\n3,4,1.5\n", options); });
  EXPECT_NE(
      message.find("wrong_delim.csv: the lines hold one field each when split at ';' (as given)"),
      std::string::npos)
      << message;
}

TEST(CsvReader, TsvByExtensionKeepsEmptyFieldsBetweenTabs) {
  // In TSV a tab is the delimiter, so two tabs in a row are an empty (NaN) cell.
  ReadOptions options;
  options.nan = NanPolicy::Drop;
  const Dataset data =
      read_text("table.tsv", "a b\tc\ty\n1\t2\t0.5\n3\t\t1.5\n5\t6\t2.5\n", options);
  EXPECT_EQ(data.format, "tsv");
  EXPECT_EQ(data.feature_names, strings({"a b", "c"}));
  ASSERT_EQ(data.rows(), 2);
  EXPECT_FLOAT_EQ(data.features(1, 0), 5.0f);
}

TEST(CsvReader, ReadsGzipCompressedCsv) {
  const std::string path = test::temp_dir() + "/packed.csv.gz";
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::string content = "a,b,y\n";
  for (int i = 0; i < 1000; ++i)
    content +=
        std::to_string(i) + "," + std::to_string(2 * i) + ",0." + std::to_string(i % 7 + 1) + "\n";
  gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
  gzclose(file);
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.rows(), 1000);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_FLOAT_EQ(data.features(999, 1), 1998.0f);
  EXPECT_DOUBLE_EQ(data.targets(999, 0), 0.6);
}

TEST(CsvReader, ColumnNumberHeaderIsAHeaderWithANote) {
  // The header pattern of cpu_act: the column numbers only.
  const Dataset data = read_text("numbered.csv", "1,2,3,4\n0.5,7,8,10.5\n1.5,7,9,11.5\n");
  ASSERT_EQ(data.rows(), 2);
  EXPECT_EQ(data.feature_names, strings({"1", "2", "3"}));
  EXPECT_EQ(data.target_names, strings({"4"}));
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_NE(data.notes[0].find("line 1 '1,2,3,4' holds the column numbers"), std::string::npos)
      << data.notes[0];

  // The same first line as data when told so.
  ReadOptions options;
  options.header = HeaderMode::No;
  const Dataset forced =
      read_text("numbered_data.csv", "1,2,3,4\n0.5,7,8,10.5\n1.5,7,9,11.5\n", options);
  ASSERT_EQ(forced.rows(), 3);
  EXPECT_FLOAT_EQ(forced.features(0, 2), 3.0f);
  EXPECT_EQ(forced.feature_names, strings({"x0", "x1", "x2"}));
  EXPECT_EQ(forced.target_names, strings({"x3"}));
}

TEST(CsvReader, ZeroBasedColumnNumbersFollowedByANameAreAHeader) {
  // Text class labels in both lines: only the column numbers say "header".
  const Dataset data = read_text("zero.csv", "0,1,2,label\n0.5,7,8,cat\n1.5,7,9,dog\n");
  ASSERT_EQ(data.rows(), 2);
  EXPECT_EQ(data.feature_names, strings({"0", "1", "2"}));
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, strings({"cat", "dog"}));
}

TEST(CsvReader, NumericFirstLineIsData) {
  const Dataset data = read_text("plain.csv", "0.5,2,1.25\n1.5,3,2.25\n2.5,1,3.25\n");
  ASSERT_EQ(data.rows(), 3);
  EXPECT_EQ(data.feature_names, strings({"x0", "x1"}));
  EXPECT_EQ(data.target_names, strings({"x2"}));
  EXPECT_FLOAT_EQ(data.features(0, 0), 0.5f);
}

TEST(CsvReader, FirstDataRowWithMissingCellIsNotAHeader) {
  ReadOptions options;
  options.nan = NanPolicy::Drop;
  const Dataset data =
      read_text("missing_first.csv", "0.5,,1.25\n1.5,3,2.25\n2.5,1,3.25\n", options);
  ASSERT_EQ(data.rows(), 2);
  EXPECT_EQ(data.feature_names, strings({"x0", "x1"}));
}

TEST(CsvReader, ForcedHeaderOnNumericLine) {
  ReadOptions options;
  options.header = HeaderMode::Yes;
  const Dataset data = read_text("forced.csv", "10,20,30\n1.5,3,2.25\n2.5,1,3.25\n", options);
  ASSERT_EQ(data.rows(), 2);
  EXPECT_EQ(data.feature_names, strings({"10", "20"}));
  EXPECT_EQ(data.target_names, strings({"30"}));
}

TEST(CsvReader, SkipsAShapeLineWithANote) {
  const Dataset data = read_text("shaped.csv", "3,2\n1, 2, 0.5\n3, 4, 1.5\n5, 6, 2.5\n");
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_FLOAT_EQ(data.features(0, 0), 1.0f);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_EQ(data.notes[0], "line 1 '3,2' looks like a shape line (rows, features) and was skipped");
}

TEST(CsvReader, ShapeLineThatFitsNothingIsARaggedRow) {
  const auto message =
      error_of<DataError>([] { read_text("badshape.csv", "7,5\n1,2,0.5\n3,4,1.5\n"); });
  EXPECT_NE(message.find("badshape.csv: line 1: 2 fields, expected 3 (as in line 2)"),
            std::string::npos)
      << message;
}

TEST(CsvReader, QuotedHeadersAndClassLabels) {
  const Dataset data = read_text("quoted.csv",
                                 "\"width, cm\",\"say \"\"hi\"\"\",class\n"
                                 "1,2,\"a, b\"\n"
                                 "3,\"4\",plain\n"
                                 "5,6,\"a, b\"\n"
                                 "7,8,\"multi\nline\"\n"
                                 "9,10,plain\n");
  ASSERT_EQ(data.rows(), 5);
  EXPECT_EQ(data.feature_names, strings({"width, cm", "say \"hi\""}));
  EXPECT_FLOAT_EQ(data.features(1, 1), 4.0f);
  EXPECT_FLOAT_EQ(data.features(4, 1), 10.0f);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, strings({"a, b", "multi\nline", "plain"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 2, 0, 1, 2}));
}

TEST(CsvReader, LineNumbersCountLinesInsideQuotes) {
  ReadOptions numeric;
  numeric.numeric = {"b"};
  const auto message = error_of<DataError>([&] {
    read_text("quoted_lines.csv", "a,b,class\n1,2,\"two\nlines\"\n3,x,c\n4,5,d\n", numeric);
  });
  EXPECT_NE(message.find("line 4, column 2 ('b'): 'x' is not a number"), std::string::npos)
      << message;
}

TEST(CsvReader, UnclosedQuoteIsAnError) {
  const auto message =
      error_of<DataError>([] { read_text("open_quote.csv", "a,b,y\n1,2,3\n4,\"5,6\n7,8,9\n"); });
  EXPECT_NE(message.find("open_quote.csv: line 3: a quoted field is never closed"),
            std::string::npos)
      << message;
}

TEST(CsvReader, TargetByNameIndexAndNegativeIndex) {
  const std::string content = "a,b,c,d\n1,2,3,4\n5,6,7,8\n9,10,11,12\n";
  for (const char* spec : {"b", "1", "-3"}) {
    SCOPED_TRACE(spec);
    ReadOptions options;
    options.target = {spec};
    const Dataset data = read_text("by_spec.csv", content, options);
    EXPECT_EQ(data.feature_names, strings({"a", "c", "d"}));
    EXPECT_EQ(data.target_names, strings({"b"}));
    EXPECT_FLOAT_EQ(data.features(2, 2), 12.0f);
    ASSERT_EQ(data.target_kind, TargetKind::Classes);        // three distinct integers
    EXPECT_EQ(data.class_names, strings({"2", "6", "10"}));  // ordered by value
  }
}

TEST(CsvReader, ANameThatIsAnotherColumnsIndexIsRefusedUntilSaidWhich) {
  // cpu_act names its columns 1..22: "--target 2" could be the column named
  // 2 (index 1) or the column at index 2 (named 3).
  const std::string text = "1,2,3\n0.5,0.25,7\n1.5,1.25,8\n";
  ReadOptions options;
  options.target = {"2"};
  try {
    read_text("names_first.csv", text, options);
    FAIL() << "an ambiguous --target was accepted";
  } catch (const DataError& error) {
    const std::string message = test::as_command_line(error.what());
    EXPECT_NE(message.find("both the name of column 1"), std::string::npos) << message;
    EXPECT_NE(message.find("--target name:2 or --target index:2"), std::string::npos) << message;
  }
  options.target = {"name:2"};
  Dataset data = read_text("names_first.csv", text, options);
  EXPECT_EQ(data.target_names, strings({"2"}));
  EXPECT_DOUBLE_EQ(data.targets(1, 0), 1.25);
  options.target = {"index:2"};
  data = read_text("names_first.csv", text, options);
  EXPECT_EQ(data.target_names, strings({"3"}));
  // A name that is its own column's index is no ambiguity.
  options.target = {"0"};
  data = read_text("own_index.csv", "0,1,2\n0.5,0.25,7\n1.5,1.25,8\n", options);
  EXPECT_EQ(data.target_names, strings({"0"}));
}

TEST(CsvReader, SeveralTargetsAreMultiOutputRegression) {
  ReadOptions options;
  options.target = {"y2", "y1"};
  const Dataset data = read_text("multi.csv", "y1,a,y2,b\n0.5,1,10.5,2\n1.5,3,11.5,4\n", options);
  EXPECT_EQ(data.feature_names, strings({"a", "b"}));
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  ASSERT_EQ(data.num_outputs(), 2);
  EXPECT_EQ(data.target_names, strings({"y2", "y1"}));
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 10.5);
  EXPECT_DOUBLE_EQ(data.targets(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(data.targets(1, 1), 1.5);
}

TEST(CsvReader, NoTargetReadsEveryColumnAsAFeature) {
  // New data to reduce with `transform` comes without its target.
  ReadOptions options;
  options.no_target = true;
  const std::string content = "a,b,c\n1,2,3\n4,,6\n7,8,9\n";
  options.nan = NanPolicy::Drop;
  for (const bool by_rows : {false, true}) {
    SCOPED_TRACE(by_rows ? "by rows" : "whole");
    const std::string path = write_temp_file("no_target.csv", content);
    const Dataset data =
        by_rows ? read_dataset_by_rows(path, options) : read_dataset(path, options);
    EXPECT_EQ(data.feature_names, strings({"a", "b", "c"}));
    ASSERT_EQ(data.rows(), 2);  // the row with an empty cell dropped
    EXPECT_FLOAT_EQ(data.features(1, 2), 9.0f);
    EXPECT_EQ(data.target_kind, TargetKind::None);
    EXPECT_EQ(data.num_outputs(), 0);
    EXPECT_TRUE(data.target_names.empty());
  }
  // One column is one feature (not the delimiter hint of a file with a target).
  const Dataset single = read_text("no_target_single.csv", "a\n1\n2\n", options);
  EXPECT_EQ(single.cols(), 1);
  EXPECT_EQ(single.rows(), 2);
  // Text in a column makes it a categorical feature.
  const Dataset text = read_text("no_target_text.csv", "a,label\n1,cat\n2,dog\n", options);
  ASSERT_EQ(text.cols(), 2);
  EXPECT_TRUE(text.is_categorical(1));
  EXPECT_EQ(text.column_levels[1], strings({"cat", "dog"}));
  options.target = {"a"};
  const auto both =
      error_of<OptionError>([&] { read_text("no_target_both.csv", content, options); });
  EXPECT_NE(both.find("--target and --no-target exclude each other"), std::string::npos) << both;
}

TEST(CsvReader, TextInOneOfSeveralTargetsIsAnError) {
  ReadOptions options;
  options.target = {"y1", "y2"};
  const auto message = error_of<DataError>(
      [&] { read_text("multi_text.csv", "a,y1,y2\n1,0.5,cat\n2,1.5,dog\n", options); });
  EXPECT_NE(message.find("line 2, column 3 ('y2'): 'cat' is not a number; several target columns"),
            std::string::npos)
      << message;
}

TEST(CsvReader, UnknownTargetListsTheColumns) {
  ReadOptions options;
  options.target = {"price"};
  const auto message =
      error_of<DataError>([&] { read_text("no_price.csv", "a,b,y\n1,2,3\n4,5,6\n", options); });
  EXPECT_NE(message.find("no_price.csv: no column named 'price'; the columns are 'a', 'b', 'y'"),
            std::string::npos)
      << message;

  std::string wide;
  for (int j = 0; j < 25; ++j) wide += "c" + std::to_string(j) + (j < 24 ? "," : "\n");
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 25; ++j) wide += std::to_string(i + j) + (j < 24 ? "," : "\n");
  }
  const auto long_message = error_of<DataError>([&] { read_text("wide.csv", wide, options); });
  EXPECT_NE(long_message.find("'c19' (the first 20 of 25)"), std::string::npos) << long_message;
  EXPECT_EQ(long_message.find("'c20'"), std::string::npos) << long_message;
}

TEST(CsvReader, TargetIndexOutOfRange) {
  ReadOptions options;
  options.target = {"5"};
  const auto message =
      error_of<DataError>([&] { read_text("range.csv", "a,b,y\n1,2,3\n4,5,6\n", options); });
  EXPECT_NE(message.find("target index 5 is out of range: the file has 3 columns"),
            std::string::npos)
      << message;
}

TEST(CsvReader, TargetNameWithoutHeader) {
  ReadOptions options;
  options.target = {"x0"};
  const Dataset data = read_text("noheader.csv", "1,5,3\n4,5,6\n", options);
  EXPECT_EQ(data.feature_names, strings({"x1", "x2"}));
  options.target = {"y"};
  const auto message =
      error_of<DataError>([&] { read_text("noheader2.csv", "1,5,3\n4,5,6\n", options); });
  EXPECT_NE(message.find("no column named 'y': the file has no header"), std::string::npos)
      << message;
}

TEST(CsvReader, RaggedRowNamesLineAndWidth) {
  const auto fewer =
      error_of<DataError>([] { read_text("fewer.csv", "a,b,y\n1,2,3\n4,5\n7,8,9\n"); });
  EXPECT_NE(fewer.find("fewer.csv: line 3: 2 fields, expected 3 (as in the header)"),
            std::string::npos)
      << fewer;
  const auto more = error_of<DataError>([] { read_text("more.csv", "1,5,3\n\n4,5,6,7\n"); });
  EXPECT_NE(more.find("more.csv: line 3: 4 fields, expected 3 (as in line 1)"), std::string::npos)
      << more;
}

TEST(CsvReader, NonNumericFeatureCellNamesLineAndColumn) {
  ReadOptions numeric;
  numeric.numeric = {"b"};
  const auto message =
      error_of<DataError>([&] { read_text("text_cell.csv", "a,b,y\n1,2,3\n4,abc,6\n", numeric); });
  EXPECT_NE(message.find("text_cell.csv: line 3, column 2 ('b'): 'abc' is not a number"),
            std::string::npos)
      << message;
  const auto trailing =
      error_of<DataError>([&] { read_text("text_cell2.csv", "a,b,y\n1,2.5x,3\n", numeric); });
  EXPECT_NE(trailing.find("line 2, column 2 ('b'): '2.5x' is not a number"), std::string::npos)
      << trailing;
}

TEST(CsvReader, EmptyCellIsNaNRefusedOnRequestDroppedOnRequest) {
  const std::string content = "a,b,y\n1,2,0.5\n3,,1.5\n5,NA,2.5\n7,8,3.5\n";
  ReadOptions strict;
  strict.nan = NanPolicy::Error;
  const auto message = error_of<DataError>([&] { read_text("holes.csv", content, strict); });
  EXPECT_NE(message.find("sample 2, feature 2 ('b') is NaN"), std::string::npos) << message;
  // By default the cells stay missing, for the selection to impute.
  const Dataset kept = read_text("holes.csv", content);
  ASSERT_EQ(kept.rows(), 4);
  EXPECT_TRUE(std::isnan(kept.features(1, 1)));
  EXPECT_TRUE(std::isnan(kept.features(2, 1)));

  ReadOptions options;
  options.nan = NanPolicy::Drop;
  const Dataset data = read_text("holes.csv", content, options);
  ASSERT_EQ(data.rows(), 2);
  EXPECT_FLOAT_EQ(data.features(1, 0), 7.0f);
  EXPECT_DOUBLE_EQ(data.targets(1, 0), 3.5);
  EXPECT_EQ(data.notes.back(), "dropped 2 of 4 samples holding NaN or infinite values");
}

TEST(CsvReader, NanAndInfTextRefusedOnRequestDroppedOnRequest) {
  const std::string content = "a,b,y\n1,nan,0.5\n3,-inf,1.5\n5,6,2.5\n7,8,NaN\n9,10,4.5\n";
  ReadOptions strict;
  strict.nan = NanPolicy::Error;
  const auto message = error_of<DataError>([&] { read_text("nans.csv", content, strict); });
  EXPECT_NE(message.find("sample 1, feature 2 ('b') is NaN"), std::string::npos) << message;
  // By default an infinite value is refused (a NaN would be imputed).
  const auto infinite = error_of<DataError>([&] { read_text("nans.csv", content); });
  EXPECT_NE(infinite.find("sample 2, feature 2 ('b') is infinite"), std::string::npos) << infinite;

  ReadOptions options;
  options.nan = NanPolicy::Drop;
  const Dataset data = read_text("nans.csv", content, options);
  ASSERT_EQ(data.rows(), 2);
  EXPECT_FLOAT_EQ(data.features(0, 0), 5.0f);
  EXPECT_FLOAT_EQ(data.features(1, 0), 9.0f);
  EXPECT_EQ(data.notes.back(), "dropped 3 of 5 samples holding NaN or infinite values");
}

TEST(CsvReader, EmptyAndBlankFiles) {
  const auto empty = error_of<DataError>([] { read_text("empty.csv", ""); });
  EXPECT_NE(empty.find("empty.csv: the file is empty"), std::string::npos) << empty;
  const auto blank = error_of<DataError>([] { read_text("blank.csv", "\n  \r\n\n"); });
  EXPECT_NE(blank.find("blank.csv: no data: the file holds only blank lines"), std::string::npos)
      << blank;
  EXPECT_THROW(read_dataset(test::temp_dir() + "/absent.csv"), FileError);
}

TEST(CsvReader, HeaderOnlyFileHasNoDataRows) {
  const auto message = error_of<DataError>([] { read_text("header_only.csv", "a,b,y\n\n"); });
  EXPECT_NE(message.find("header_only.csv: no data rows after the header (line 1)"),
            std::string::npos)
      << message;
}

TEST(CsvReader, OneClassOnlyIsRefused) {
  const auto message =
      error_of<DataError>([] { read_text("one_class.csv", "a,b,label\n1,2,cat\n3,4,cat\n"); });
  EXPECT_NE(message.find("has one class only ('cat')"), std::string::npos) << message;
}

TEST(CsvReader, MissingClassLabelRefusedOrDropped) {
  const std::string content = "a,label\n1,cat\n2,\n3,dog\n4,cat\n5,NA\n";
  ReadOptions strict;
  strict.nan = NanPolicy::Error;
  const auto message = error_of<DataError>([&] { read_text("no_label.csv", content, strict); });
  EXPECT_NE(message.find("sample 2: the class label 'label' is missing"), std::string::npos)
      << message;

  for (const NanPolicy policy : {NanPolicy::Drop, NanPolicy::Impute}) {
    ReadOptions options;
    options.nan = policy;  // a target is never imputed: its row goes
    const Dataset data = read_text("no_label.csv", content, options);
    ASSERT_EQ(data.rows(), 3);
    EXPECT_FLOAT_EQ(data.features(1, 0), 3.0f);
    EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0}));
    EXPECT_EQ(data.notes.back(), "dropped 2 of 5 samples whose class label 'label' is missing");
  }
}

TEST(CsvReader, FewIntegerTargetsAreClassesUnlessRegressionIsAsked) {
  const std::string content = "a,y\n0.5,1\n1.5,2\n2.5,1\n3.5,3\n";
  const Dataset classes = read_text("int_target.csv", content);
  ASSERT_EQ(classes.target_kind, TargetKind::Classes);
  EXPECT_EQ(classes.class_names, strings({"1", "2", "3"}));
  EXPECT_EQ(classes.labels, (std::vector<std::int32_t>{0, 1, 0, 2}));

  ReadOptions options;
  options.task = TaskHint::Regression;
  const Dataset real = read_text("int_target.csv", content, options);
  ASSERT_EQ(real.target_kind, TargetKind::Real);
  EXPECT_DOUBLE_EQ(real.targets(3, 0), 3.0);
}

TEST(CsvReader, ValuesMatchStrtofExactly) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::string content;
  std::vector<std::string> cells;
  const int rows = 2000;
  const int cols = 6;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      char cell[64];
      const double value = normal(rng) * std::pow(10.0, static_cast<int>(rng() % 13) - 6);
      // Short decimals (the fast path), 9 and 17 digits (from_chars), signs, exponents.
      static const char* const formats[] = {"%.7g", "%.9g", "%.17e", "%.6f", "%+.3e", "%.8g"};
      std::snprintf(cell, sizeof cell, formats[j], value);
      cells.push_back(cell);
      content += cell;
      content += j + 1 < cols ? "," : "\n";
    }
  }
  ReadOptions options;
  options.header = HeaderMode::No;
  const Dataset data = read_text("exact.csv", content, options);
  ASSERT_EQ(data.rows(), rows);
  ASSERT_EQ(data.cols(), cols - 1);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j + 1 < cols; ++j) {
      const std::string& cell = cells[static_cast<std::size_t>(i * cols + j)];
      ASSERT_EQ(data.features(i, j), std::strtof(cell.c_str(), nullptr)) << cell;
    }
    ASSERT_EQ(data.targets(i, 0),
              std::strtod(cells[static_cast<std::size_t>(i * cols + cols - 1)].c_str(), nullptr));
  }
}

TEST(CsvReader, ShortDecimalsMatchStrtofExactly) {
  // Mantissas near 2^24 and powers of ten up to 10: the edges of the fast path.
  std::mt19937 rng(11);
  std::string content;
  std::vector<std::string> cells;
  const int rows = 20000;
  for (int i = 0; i < rows; ++i) {
    const unsigned mantissa = i % 3 == 0 ? (1u << 24) - 1 - rng() % 1000 : rng() % (1u << 24);
    const int exponent = static_cast<int>(rng() % 21) - 10;
    std::string cell = std::to_string(mantissa);
    if (i % 2 == 0) {
      cell += "e" + std::to_string(exponent);
    } else if (exponent < 0) {
      const auto point = static_cast<int>(cell.size()) + exponent;
      cell = point > 0 ? cell.insert(static_cast<std::size_t>(point), ".")
                       : "0." + std::string(static_cast<std::size_t>(-point), '0') + cell;
    }
    if (i % 5 == 0) cell = "-" + cell;
    cells.push_back(cell);
    content += cell + ",1\n";
  }
  ReadOptions options;
  options.header = HeaderMode::No;
  options.task = TaskHint::Regression;
  const Dataset data = read_text("short.csv", content, options);
  ASSERT_EQ(data.rows(), rows);
  for (int i = 0; i < rows; ++i) {
    const std::string& cell = cells[static_cast<std::size_t>(i)];
    ASSERT_EQ(data.features(i, 0), std::strtof(cell.c_str(), nullptr)) << cell;
  }
}

TEST(CsvReader, FixtureWithSemicolonsAndQuotedLabels) {
  const Dataset data = read_dataset(test::fixture("flowers.csv"));
  ASSERT_EQ(data.rows(), 6);
  EXPECT_EQ(data.feature_names, strings({"sepal length", "sepal; width", "petal length"}));
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, strings({"Iris \"setosa\"", "Iris versicolor"}));
  EXPECT_FLOAT_EQ(data.features(5, 2), 4.5f);
}

// ------------------------------------------------ the shared datasets

TEST(CsvSharedData, Pyrimidines) {
  TOPKFS_REQUIRE_SHARED_DATA("pyrim");
  const Dataset data = read_dataset(test::shared_data("pyrim/pyrim.csv"));
  ASSERT_EQ(data.rows(), 74);
  ASSERT_EQ(data.cols(), 26);
  EXPECT_EQ(data.feature_names.front(), "1");
  EXPECT_EQ(data.feature_names.back(), "26");
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_EQ(data.target_names, strings({"y"}));
  EXPECT_DOUBLE_EQ(data.targets.minCoeff(), 0.1);
  EXPECT_DOUBLE_EQ(data.targets.maxCoeff(), 0.9);
  // Line 2: 0.5,0.26,0.1,...,0.571; the last line ends 0.805 (CRLF file).
  EXPECT_FLOAT_EQ(data.features(0, 0), 0.5f);
  EXPECT_FLOAT_EQ(data.features(0, 1), 0.26f);
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 0.571);
  EXPECT_DOUBLE_EQ(data.targets(73, 0), 0.805);
  EXPECT_TRUE(data.notes.empty());
}

TEST(CsvSharedData, Kinematics) {
  TOPKFS_REQUIRE_SHARED_DATA("kin8nm");
  const Dataset data = read_dataset(test::shared_data("kin8nm/kin8nm.csv"));
  ASSERT_EQ(data.rows(), 8192);
  ASSERT_EQ(data.cols(), 8);
  EXPECT_EQ(data.feature_names.front(), "x0");
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_GE(data.targets.minCoeff(), 0.04);
  EXPECT_LE(data.targets.maxCoeff(), 1.46);
  EXPECT_NEAR(data.targets.minCoeff(), 0.040165378, 1e-12);
  EXPECT_FLOAT_EQ(data.features(0, 0), -1.5119208e-02f);
  EXPECT_FLOAT_EQ(data.features(0, 1), 3.6074091e-01f);
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 5.3652416e-01);
  EXPECT_FLOAT_EQ(data.features(8191, 0), 1.1550105e+00f);
  EXPECT_DOUBLE_EQ(data.targets(8191, 0), 4.9685261e-01);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_EQ(data.notes[0],
            "line 1 '8192,8' looks like a shape line (rows, features) and was skipped");
}

TEST(CsvSharedData, Ailerons) {
  TOPKFS_REQUIRE_SHARED_DATA("ailerons");
  const Dataset data = read_dataset(test::shared_data("ailerons/ailerons.csv"));
  ASSERT_EQ(data.rows(), 13750);
  ASSERT_EQ(data.cols(), 40);
  EXPECT_EQ(data.target_names, strings({"y"}));
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_DOUBLE_EQ(data.targets.minCoeff(), -0.0036);
  EXPECT_DOUBLE_EQ(data.targets.maxCoeff(), 0.0);
  // Line 2: -17,-6,-0.03,...,-8.0E-4; the last line: -165,52,...,-0.0018.
  EXPECT_FLOAT_EQ(data.features(0, 0), -17.0f);
  EXPECT_FLOAT_EQ(data.features(0, 8), 0.015f);
  EXPECT_DOUBLE_EQ(data.targets(0, 0), -8.0e-4);
  EXPECT_FLOAT_EQ(data.features(13749, 0), -165.0f);
  EXPECT_DOUBLE_EQ(data.targets(13749, 0), -0.0018);
}

TEST(CsvSharedData, CompAct) {
  TOPKFS_REQUIRE_SHARED_DATA("cpu_act");
  const Dataset data = read_dataset(test::shared_data("cpu_act/cpu_act.csv"));
  ASSERT_EQ(data.rows(), 8192);
  ASSERT_EQ(data.cols(), 21);
  EXPECT_EQ(data.feature_names.front(), "1");
  EXPECT_EQ(data.target_names, strings({"22"}));
  // The target holds 56 distinct integers 0..99: more than max_auto_classes
  // (30), so the auto rule reads it as real values.
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_DOUBLE_EQ(data.targets.minCoeff(), 0.0);
  EXPECT_DOUBLE_EQ(data.targets.maxCoeff(), 99.0);
  // Line 2: 6,2,1036,...,1851864,90; the last line: 5,0,1888,...,80.
  EXPECT_FLOAT_EQ(data.features(0, 0), 6.0f);
  EXPECT_FLOAT_EQ(data.features(0, 20), 1851864.0f);
  EXPECT_DOUBLE_EQ(data.targets(0, 0), 90.0);
  EXPECT_FLOAT_EQ(data.features(8191, 2), 1888.0f);
  EXPECT_DOUBLE_EQ(data.targets(8191, 0), 80.0);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_NE(data.notes[0].find("holds the column numbers and was read as the header"),
            std::string::npos);
}

}  // namespace
}  // namespace topkfs
