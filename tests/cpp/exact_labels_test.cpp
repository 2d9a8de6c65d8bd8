// Integer class labels beyond 2^53 stay apart (src/io/integer_labels.hpp):
// 2^53 and 2^53 + 1 are one double, so readers that have the label's text
// or its 64-bit integer keep it exact, and those that have only a double
// refuse such labels as classes rather than merge them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hand_made_files.hpp"
#include "test_support.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

std::vector<std::string> names(std::initializer_list<const char*> list) {
  return std::vector<std::string>(list.begin(), list.end());
}

TEST(ExactLabels, CsvLabelsAbove2To53StayApart) {
  const std::string path = write_temp_file(
      "big-labels.csv", "a,y\n1,0\n2,1\n3,9007199254740992\n4,9007199254740993\n5,1\n");
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, names({"0", "1", "9007199254740992", "9007199254740993"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 2, 3, 1}));
}

TEST(ExactLabels, SixtyFourBitLabelsKeepTheirTextAndOrder) {
  // 2^63 and 2^64 - 1 wrapped to one negative class before.
  const std::string path =
      write_temp_file("u64-labels.csv",
                      "a,y\n1,9223372036854775808\n2,18446744073709551615\n3,-9223372036854775808\n"
                      "4,+0018446744073709551615\n");
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names,
            names({"-9223372036854775808", "9223372036854775808", "18446744073709551615"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 2, 0, 2}));
}

TEST(ExactLabels, LibsvmLabelsAreReadFromTheirText) {
  const std::string path = write_temp_file(
      "big.svm", "9007199254740992 1:1\n9007199254740993 1:2\n9007199254740992 1:3\n");
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, names({"9007199254740992", "9007199254740993"}));
}

TEST(ExactLabels, ARegressionTaskKeepsTheNumbers) {
  ReadOptions options;
  options.task = TaskHint::Regression;
  const Dataset data = read_dataset(
      write_temp_file("big-real.csv", "a,y\n1,9007199254740992\n2,9007199254740993\n3,1\n"),
      options);
  EXPECT_EQ(data.target_kind, TargetKind::Real);
}

std::string int64_payload(const std::vector<std::int64_t>& values) {
  std::string bytes(values.size() * 8, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string float32_payload(std::size_t count) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i);
  std::string bytes(count * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(ExactLabels, NpzInt64LabelsAreDecodedExactly) {
  const std::int64_t big = std::int64_t{1} << 53;
  const std::string x =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2), }", float32_payload(8));
  const std::string y = npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }",
                                  int64_payload({big, big + 1, 0, big + 1}));
  const std::string path =
      write_temp_file("big-labels.npz", zip_bytes({{"X.npy", x}, {"Y.npy", y}}));
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, names({"0", "9007199254740992", "9007199254740993"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 2, 0, 2}));
}

TEST(ExactLabels, FloatLabelsBeyond2To53AreRefusedAsClasses) {
  const std::string x =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", float32_payload(4));
  std::string y_payload(16, '\0');
  const double values[2] = {1e16, 1e16 + 2};
  std::memcpy(y_payload.data(), values, 16);
  const std::string y =
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", y_payload);
  const std::string path =
      write_temp_file("float-labels.npz", zip_bytes({{"X.npy", x}, {"Y.npy", y}}));
  ReadOptions options;
  options.task = TaskHint::Classification;
  const std::string message = data_error(path, options);
  EXPECT_TRUE(contains(message, "beyond 2^53")) << message;
  EXPECT_TRUE(contains(message, "--task regression")) << message;
  // Under --task auto they are a real target, and the user is told.
  const Dataset data = read_dataset(path);
  EXPECT_EQ(data.target_kind, TargetKind::Real);
  ASSERT_FALSE(data.notes.empty());
  EXPECT_TRUE(contains(data.notes.back(), "beyond 2^53, read as a real target"))
      << data.notes.back();
}

}  // namespace
}  // namespace topkfs::test
