// Mixed-type tables: text columns read as categorical, missing cells kept
// for imputation, the all-text header, and the encoding learned from the
// training rows only (data/table_encoding.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/table_encoding.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

Dataset read_csv_text(const std::string& name, const std::string& content,
                      const ReadOptions& options = {}) {
  return read_dataset(write_temp_file(name, content), options);
}

std::vector<std::string> names(std::initializer_list<const char*> items) {
  return {items.begin(), items.end()};
}

TEST(MixedTable, TextColumnsAreCategoricalWithLevelsInNaturalOrder) {
  const Dataset data = read_csv_text("colours.csv",
                                     "size,colour,grade,y\n"
                                     "1.5,red,10,a\n"
                                     "2.5,blue,9,b\n"
                                     "3.5,,2,a\n"
                                     "4.5,red,,b\n");
  ASSERT_EQ(data.cols(), 3);
  EXPECT_FALSE(data.is_categorical(0));
  ASSERT_TRUE(data.is_categorical(1));
  EXPECT_FALSE(data.is_categorical(2));
  EXPECT_EQ(data.column_levels[1], names({"blue", "red"}));
  EXPECT_EQ(data.features(0, 1), 1.0f);  // red
  EXPECT_EQ(data.features(1, 1), 0.0f);  // blue
  EXPECT_TRUE(std::isnan(data.features(2, 1)));
  EXPECT_TRUE(std::isnan(data.features(3, 2)));  // an empty numeric cell is missing
  EXPECT_EQ(data.features(1, 2), 9.0f);
}

TEST(MixedTable, NumbersAndTextInOneColumnMakeItCategoricalWithANote) {
  const Dataset data = read_csv_text("mixed.csv", "a,b,y\n1,10,0\n2,x,1\n3,2,0\n4,10,1\n");
  ASSERT_TRUE(data.is_categorical(1));
  // Numbers by value, then text.
  EXPECT_EQ(data.column_levels[1], names({"2", "10", "x"}));
  EXPECT_EQ(data.features(0, 1), 1.0f);
  EXPECT_EQ(data.features(1, 1), 2.0f);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_TRUE(contains(data.notes[0],
                       "column 'b' mixes numbers (3 cells) and text (1 cells, the "
                       "first 'x' on line 3)"))
      << data.notes[0];
}

TEST(MixedTable, NumericRefusesTextNamingTheCell) {
  ReadOptions options;
  options.numeric = {"b"};
  const std::string message =
      data_error(write_temp_file("numeric.csv", "a,b,y\n1,10,0\n2,x,1\n"), options);
  EXPECT_TRUE(contains(message,
                       "numeric.csv: line 3, column 2 ('b'): 'x' is not a number "
                       "(--numeric says the column holds numbers"))
      << message;
}

TEST(MixedTable, CategoricalMakesIntegerCodesLevels) {
  ReadOptions options;
  options.categorical = {"1"};  // by index
  const Dataset data = read_csv_text("codes.csv", "a,b,y\n1,3,0\n2,1,1\n3,3,0\n4,,1\n", options);
  ASSERT_TRUE(data.is_categorical(1));
  EXPECT_EQ(data.column_levels[1], names({"1", "3"}));
  EXPECT_EQ(data.features(0, 1), 1.0f);
  EXPECT_EQ(data.features(1, 1), 0.0f);
  EXPECT_TRUE(std::isnan(data.features(3, 1)));
  ReadOptions target;
  target.categorical = {"y"};
  const std::string message = error_of<OptionError>(
      [&] { read_dataset(write_temp_file("codes2.csv", "a,y\n1,0\n2,1\n"), target); });
  EXPECT_TRUE(contains(message, "--categorical 'y' names the target column")) << message;
}

TEST(MixedTable, TooManyLevelsAreRefusedNamingColumnCountAndOption) {
  std::string text = "id,x,y\n";
  for (int i = 0; i < 30; ++i) text += "row" + std::to_string(i) + "," + std::to_string(i) + ",0\n";
  ReadOptions options;
  options.max_levels = 20;
  const std::string message = data_error(write_temp_file("ids.csv", text), options);
  EXPECT_TRUE(contains(message, "ids.csv: column 'id' has 30 levels, more than --max-levels 20"))
      << message;
}

TEST(MixedTable, AnAllTextFileHasItsHeaderRecognised) {
  const Dataset data = read_csv_text("votes.csv",
                                     "\"Class\",\"V1\",\"V2\"\n"
                                     "\"rep\",\"n\",\"y\"\n"
                                     "\"dem\",\"y\",\n"
                                     "\"dem\",\"n\",\"n\"\n"
                                     "\"rep\",,\"y\"\n",
                                     [] {
                                       ReadOptions options;
                                       options.target = {"Class"};
                                       return options;
                                     }());
  EXPECT_EQ(data.feature_names, names({"V1", "V2"}));
  EXPECT_EQ(data.rows(), 4);
  EXPECT_EQ(data.class_names, names({"dem", "rep"}));
  ASSERT_FALSE(data.notes.empty());
  EXPECT_TRUE(contains(data.notes[0], "read as the header")) << data.notes[0];
}

TEST(MixedTable, MissingTargetsDropTheirRowsWithANote) {
  const Dataset classes = read_csv_text("labels.csv", "a,y\n1,u\n2,\n3,v\n4,u\n");
  EXPECT_EQ(classes.rows(), 3);
  ASSERT_FALSE(classes.notes.empty());
  EXPECT_TRUE(contains(classes.notes.back(), "dropped 1 of 4 samples")) << classes.notes.back();
  const Dataset real = read_csv_text("real.csv", "a,y\n1,0.5\n2,\n3,1.5\n,2.5\n");
  EXPECT_EQ(real.rows(), 3);  // the missing feature stays, the missing target goes
  EXPECT_TRUE(std::isnan(real.features(2, 0)));
  EXPECT_TRUE(contains(real.notes.back(), "target is missing (a target is never imputed)"))
      << real.notes.back();
}

TEST(MixedTable, ExtraMissingMarkersAndErrorPolicy) {
  ReadOptions options;
  options.na_values = {"-999"};
  const Dataset data = read_csv_text("marker.csv", "a,b,y\n1,-999,0\n2,3,1\n", options);
  EXPECT_FALSE(data.is_categorical(1));
  EXPECT_TRUE(std::isnan(data.features(0, 1)));
  ReadOptions strict;
  strict.nan = NanPolicy::Error;
  const std::string message =
      data_error(write_temp_file("strict.csv", "a,b,y\n1,,0\n2,3,1\n"), strict);
  EXPECT_TRUE(contains(message, "sample 1, feature 2 ('b') is NaN")) << message;
  EXPECT_TRUE(
      contains(data_error(write_temp_file("inf.csv", "a,b,y\n1,inf,0\n2,3,1\n")), "is infinite"));
}

// The encoding sees the training rows only.
TEST(TableEncoding, IsLearnedFromTheTrainingRowsOnly) {
  const Dataset data = read_csv_text("enc.csv",
                                     "n,c,gone,y\n"
                                     "1,a,,0\n"
                                     ",b,,1\n"
                                     "3,a,,0\n"
                                     "100,z,5,1\n");  // row 3: the test row
  const std::vector<std::int64_t> train = {0, 1, 2};
  const TableEncoding encoding = learn_encoding(data, train);
  ASSERT_EQ(encoding.columns.size(), 3u);
  const ColumnEncoding& n = encoding.columns[0];
  EXPECT_FALSE(n.categorical);
  EXPECT_DOUBLE_EQ(n.fill, 2.0);  // median of 1 and 3; 100 is a test row
  EXPECT_TRUE(n.indicator);
  const ColumnEncoding& c = encoding.columns[1];
  EXPECT_EQ(c.levels, names({"a", "b"}));  // "z" only in the test row
  EXPECT_FALSE(c.missing_level);
  EXPECT_TRUE(encoding.columns[2].dropped);
  EXPECT_EQ(encoding.encoded_columns(), 4);
  EXPECT_TRUE(contains(encoding.summary(), "dropped, missing in every one of those rows: 'gone'"))
      << encoding.summary();

  std::int64_t unseen = 0;
  const Dataset encoded = encode_table(data, encoding, &unseen);
  EXPECT_EQ(unseen, 1);
  EXPECT_EQ(encoded.feature_names, names({"n", "n (missing)", "c=a", "c=b"}));
  EXPECT_EQ(encoded.column_group, (std::vector<std::int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(encoded.group_names, names({"n", "c", "gone"}));
  EXPECT_EQ(encoded.features(1, 0), 2.0f);
  EXPECT_EQ(encoded.features(1, 1), 1.0f);
  EXPECT_EQ(encoded.features(3, 0), 100.0f);
  EXPECT_EQ(encoded.features(3, 2) + encoded.features(3, 3), 0.0f);  // unseen level: zeros
  EXPECT_EQ(encoded.features(0, 2), 1.0f);
  EXPECT_EQ(encoded.features(1, 3), 1.0f);
  EXPECT_EQ(encoding.encoded_columns_of({1}), (std::vector<std::int64_t>{2, 3}));
}

TEST(TableEncoding, RoundTripsThroughJsonAndEncodesNumbersAsLevelNames) {
  ReadOptions options;
  options.categorical = {"c"};
  const Dataset data = read_csv_text("codes3.csv", "c,y\n1,0\n2,1\n,0\n", options);
  const TableEncoding encoding = learn_encoding(data, iota_rows(3));
  const TableEncoding back = table_encoding_from_json(to_json(encoding), "t");
  ASSERT_EQ(back.columns.size(), 1u);
  EXPECT_EQ(back.columns[0].levels, names({"1", "2"}));
  EXPECT_TRUE(back.columns[0].missing_level);
  // New data holding the same codes read as numbers encodes the same.
  const Dataset plain = read_csv_text("codes4.csv", "c,y\n2,0\n1,1\n");
  const Dataset encoded = encode_table(plain, back);
  EXPECT_EQ(encoded.feature_names, names({"c=1", "c=2", "c=(missing)"}));
  EXPECT_EQ(encoded.features(0, 1), 1.0f);
  EXPECT_EQ(encoded.features(1, 0), 1.0f);
  const std::string message = error_of<DataError>([&] {
    table_encoding_from_json(nlohmann::json{{"columns", {{{"name", "c"}}}}}, "r.json");
  });
  EXPECT_TRUE(contains(message, "r.json: the encoding is malformed")) << message;
}

TEST(TableEncoding, NumericDataWithoutMissingCellsNeedsNone) {
  const Dataset data = read_csv_text("plain.csv", "a,b,y\n1,2,0\n3,4,1\n");
  EXPECT_FALSE(needs_encoding(data));
  const Dataset gaps = read_csv_text("gap.csv", "a,b,y\n1,,0\n3,4,1\n");
  EXPECT_TRUE(needs_encoding(gaps));
}

}  // namespace
}  // namespace topkfs::test
