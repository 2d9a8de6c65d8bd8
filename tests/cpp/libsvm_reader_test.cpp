// LIBSVM (svmlight) reader: the format's features, a round trip against a CSV
// of the same numbers, scikit-learn's writer, and the error messages.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::write_temp_file;

template <typename Read>
std::string data_error_of(Read read) {
  try {
    read();
  } catch (const DataError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no DataError thrown";
  return {};
}

TEST(LibsvmReader, ReadsTheHandWrittenFixture) {
  const Dataset data = read_dataset(test::fixture("small.svm"));
  EXPECT_EQ(data.format, "libsvm");
  ASSERT_EQ(data.rows(), 5);
  ASSERT_EQ(data.cols(), 4);
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"f1", "f2", "f3", "f4"}));
  FeatureMatrix expected(5, 4);
  expected << 0.5f, 0, -2, 0,  //
      0, 1e-3f, 0, 4,          //
      0, 0, 0, 7.25f,          //
      1, 2, 3, 4,              //
      0, 0, 0, 0;
  EXPECT_EQ(data.features, expected);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"-1", "1"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 0, 1, 0, 0}));
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_EQ(data.notes[0], "query ids (qid:) on 2 lines were ignored");
}

// The fixture pair was written by this script (scikit-learn 1.2.1):
//   import numpy as np
//   from sklearn.datasets import dump_svmlight_file
//   rng = np.random.default_rng(3)
//   X = rng.normal(size=(12, 7)).round(4)
//   X[rng.random(X.shape) < 0.5] = 0.0
//   y = (X[:, 0] * 2 - X[:, 3] + 0.5).round(3)
//   dump_svmlight_file(X, y, "sklearn_dump.svm", zero_based=False,
//                      comment="made by sklearn.datasets.dump_svmlight_file")
//   np.savetxt("sklearn_dump.csv", np.column_stack([X, y]), delimiter=",", fmt="%.6g",
//              header=",".join([f"f{j + 1}" for j in range(7)] + ["y"]), comments="")
TEST(LibsvmReader, SklearnDumpMatchesDenseCsv) {
  const Dataset svm = read_dataset(test::fixture("sklearn_dump.svm"));
  const Dataset csv = read_dataset(test::fixture("sklearn_dump.csv"));
  ASSERT_EQ(svm.rows(), 12);
  ASSERT_EQ(svm.cols(), 7);
  EXPECT_EQ(svm.features, csv.features);
  EXPECT_EQ(svm.feature_names, csv.feature_names);
  ASSERT_EQ(svm.target_kind, TargetKind::Real);
  EXPECT_EQ(svm.targets, csv.targets);
  EXPECT_DOUBLE_EQ(svm.targets(0, 0), 5.15);
  EXPECT_FLOAT_EQ(svm.features(0, 6), -2.02f);
}

TEST(LibsvmReader, RoundTripAgainstCsvOfTheSameNumbers) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  const int rows = 200;
  const int cols = 30;
  std::string svm;
  std::string csv;
  for (int j = 0; j < cols; ++j) csv += "f" + std::to_string(j + 1) + ",";
  csv += "y\n";
  for (int i = 0; i < rows; ++i) {
    const int label = static_cast<int>(rng() % 3);
    svm += std::to_string(label);
    for (int j = 0; j < cols; ++j) {
      const bool present = rng() % 4 == 0 || (i == 0 && j == cols - 1);  // the last index appears
      const std::string value = present ? fmt::format("{}", uniform(rng)) : "0";
      if (present) svm += " " + std::to_string(j + 1) + ":" + value;
      csv += value + ",";
    }
    svm += "\n";
    csv += std::to_string(label) + "\n";
  }
  const Dataset from_svm = read_dataset(write_temp_file("trip.svm", svm));
  const Dataset from_csv = read_dataset(write_temp_file("trip.csv", csv));
  ASSERT_EQ(from_svm.rows(), rows);
  ASSERT_EQ(from_svm.cols(), cols);
  EXPECT_EQ(from_svm.features, from_csv.features);
  EXPECT_EQ(from_svm.feature_names, from_csv.feature_names);
  ASSERT_EQ(from_svm.target_kind, TargetKind::Classes);
  EXPECT_EQ(from_svm.class_names, from_csv.class_names);
  EXPECT_EQ(from_svm.labels, from_csv.labels);
}

TEST(LibsvmReader, DetectedByContentWithoutExtension) {
  const Dataset data = read_dataset(write_temp_file("noext", "a 1:1 2:2\nb 2:5\n"));
  EXPECT_EQ(data.format, "libsvm");
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_FLOAT_EQ(data.features(1, 1), 5.0f);
}

TEST(LibsvmReader, ReadsGzipWhenAsked) {
  const std::string path = test::temp_dir() + "/packed.svm.gz";
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  const std::string content = "1 1:0.5 3:1\n2 2:2\n1 3:4\n";
  gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
  gzclose(file);
  ReadOptions options;
  options.format = Format::Libsvm;
  const Dataset data = read_dataset(path, options);
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 3);
  EXPECT_FLOAT_EQ(data.features(2, 2), 4.0f);
}

TEST(LibsvmReader, IndexZeroOrNegativeIsAnError) {
  const auto zero =
      data_error_of([] { read_dataset(write_temp_file("zero.svm", "1 1:2\n1 0:3\n")); });
  EXPECT_NE(zero.find("zero.svm: line 2: feature index '0' in '0:3' is not an integer from 1 up"),
            std::string::npos)
      << zero;
  const auto negative =
      data_error_of([] { read_dataset(write_temp_file("negative.svm", "1 -4:3\n")); });
  EXPECT_NE(negative.find("line 1: feature index '-4'"), std::string::npos) << negative;
  const auto text =
      data_error_of([] { read_dataset(write_temp_file("textindex.svm", "1 a:3\n")); });
  EXPECT_NE(text.find("line 1: feature index 'a'"), std::string::npos) << text;
}

TEST(LibsvmReader, NonNumericValueIsAnError) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("value.svm", "1 1:2\n\n-1 2:abc\n")); });
  EXPECT_NE(message.find("value.svm: line 3: the value 'abc' of feature 2 is not a number"),
            std::string::npos)
      << message;
}

TEST(LibsvmReader, ARepeatedIndexIsAnErrorInEitherOrder) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("repeated.svm", "0 2:1\n1 1:5 1:7\n")); });
  EXPECT_NE(message.find("repeated.svm: line 2: feature index 1 is given twice ('1:7' after "
                         "'1:5')"),
            std::string::npos)
      << message;
  const auto unordered = data_error_of(
      [] { read_dataset(write_temp_file("unordered.svm", "0 2:1\n1 3:1 1:2 3:4\n")); });
  EXPECT_NE(unordered.find("line 2: feature index 3 is given twice"), std::string::npos)
      << unordered;
  // Out of order without a repeat is read as given.
  const Dataset data = read_dataset(write_temp_file("out-of-order.svm", "1 3:1 1:2\n0 2:4\n"));
  EXPECT_EQ(data.features(0, 0), 2.0f);
  EXPECT_EQ(data.features(0, 2), 1.0f);
}

TEST(LibsvmReader, MissingColonIsAnError) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("colon.svm", "1 1:2 3\n")); });
  EXPECT_NE(message.find("colon.svm: line 1: '3' is not an index:value pair"), std::string::npos)
      << message;
}

TEST(LibsvmReader, MissingLabelIsAnError) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("nolabel.svm", "1 1:2\n2:3\n")); });
  EXPECT_NE(message.find("line 2: the line starts with '2:3', expected a label"), std::string::npos)
      << message;
}

TEST(LibsvmReader, NanValueRefusedOnRequestDroppedOnRequest) {
  const std::string path = write_temp_file("nan.svm", "1 1:2\n2 1:nan\n1 2:1\n2 1:3\n");
  ReadOptions strict;
  strict.nan = NanPolicy::Error;
  const auto message = data_error_of([&] { read_dataset(path, strict); });
  EXPECT_NE(message.find("sample 2, feature 1 ('f1') is NaN"), std::string::npos) << message;
  ReadOptions options;
  options.nan = NanPolicy::Drop;
  EXPECT_EQ(read_dataset(path, options).rows(), 3);
}

TEST(LibsvmReader, HugeIndexIsRefusedBeforeAllocating) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("huge.svm", "1 1:2\n2 3000000000:1\n")); });
  EXPECT_NE(message.find("2 samples x 3000000000 features"), std::string::npos) << message;
}

TEST(LibsvmReader, CommentsOnlyFileHasNoData) {
  const auto message =
      data_error_of([] { read_dataset(write_temp_file("comments.svm", "# nothing\n\n# here\n")); });
  EXPECT_NE(message.find("comments.svm: no data: no line holds a label"), std::string::npos)
      << message;
}

// Every LIBSVM line starts with its label: there is no reading without it,
// from any entry point (the command line refuses the flag before reading).
TEST(LibsvmReader, NoTargetIsRefusedByEveryEntryPoint) {
  ReadOptions options;
  options.no_target = true;
  const std::string path = test::fixture("small.svm");
  const auto refused = [](auto read) {
    try {
      read();
    } catch (const OptionError& error) {
      return test::as_command_line(error.what());
    }
    return std::string("read");
  };
  for (const std::string& message : {refused([&] { read_dataset(path, options); }),
                                     refused([&] { read_dataset_by_rows(path, options); }),
                                     refused([&] { open_row_stream(path, options); })}) {
    EXPECT_NE(message.find("--no-target is for every format but LIBSVM"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace topkfs
