// The HDF5 reader program's answer (src/io/reader_process_protocol.hpp): the
// reading process decodes it after the program has read a file that may be
// hostile, so an answer that cannot be decoded, or that gives a matrix no
// file can hold, is refused as a DataError naming the file, before anything
// is mapped or indexed by it. The fuzz target reader_answer feeds it
// arbitrary bytes (tests/fuzz).
#include <gtest/gtest.h>

#include <string>

#include "reader_process_protocol.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

namespace protocol = detail::reader_process;

Dataset small_classes() {
  Dataset data;
  data.feature_names = {"a", "b"};
  data.target_kind = TargetKind::Classes;
  data.labels = {0, 1, 1};
  data.class_names = {"no", "yes"};
  data.target_names = {"label"};
  data.notes = {"read"};
  data.predefined_split = Split{{0, 1}, {2}};
  data.image_shape = ImageShape{1, 2, 1};
  return data;
}

// The answer for `data` with the shape's fields replaced.
std::string answer(const Dataset& data, std::int64_t rows, std::int64_t cols) {
  protocol::MatrixShape shape;
  shape.rows = rows;
  shape.cols = cols;
  return protocol::describe_dataset(data, shape);
}

void expect_refused(const std::string& bytes, const std::string& words) {
  protocol::MatrixShape shape;
  try {
    protocol::dataset_from_description(bytes, &shape, "in.h5");
    ADD_FAILURE() << "accepted";
  } catch (const DataError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("in.h5: the HDF5 reader program's answer"), std::string::npos)
        << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
  }
}

TEST(ReaderAnswer, ASoundAnswerComesBackAsItWasSent) {
  const Dataset sent = small_classes();
  protocol::MatrixShape shape;
  const Dataset got = protocol::dataset_from_description(answer(sent, 3, 2), &shape, "in.h5");
  EXPECT_EQ(shape.rows, 3);
  EXPECT_EQ(shape.cols, 2);
  EXPECT_EQ(got.feature_names, sent.feature_names);
  EXPECT_EQ(got.labels, sent.labels);
  EXPECT_EQ(got.class_names, sent.class_names);
  ASSERT_TRUE(got.predefined_split.has_value());
  EXPECT_EQ(got.predefined_split->test, sent.predefined_split->test);
  ASSERT_TRUE(got.image_shape.has_value());
  EXPECT_EQ(got.image_shape->width, 2);
}

TEST(ReaderAnswer, AShapeNoMatrixCanHaveIsRefused) {
  const Dataset data = small_classes();
  expect_refused(answer(data, -3, 2), "impossible -3 x 2 matrix");
  // 2^62 x 4 cells of 4 bytes: the byte count wraps to 0 in 64 bits.
  expect_refused(answer(data, std::int64_t{1} << 62, 4), "impossible");
  expect_refused(answer(data, std::int64_t{1} << 40, std::int64_t{1} << 40), "impossible");
}

TEST(ReaderAnswer, UndecodableAnswersAreRefused) {
  expect_refused("", "unreadable");
  expect_refused(std::string("\xa1\x64rows\x06", 7), "unreadable");  // a map without the rest
  std::string bytes = answer(small_classes(), 3, 2);
  // target_kind 1 (classes) -> 9: no such kind. CBOR writes the key's text
  // and then the small integer as one byte.
  const auto at = bytes.find("target_kind");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 11] = '\x09';
  expect_refused(bytes, "target kind 9");
  // A label beyond the class names would index past them (found by the
  // fuzz target: Dataset::validate asserts on it).
  Dataset beyond = small_classes();
  beyond.labels = {0, 1, 2};
  expect_refused(answer(beyond, 3, 2), "label 2 of 2 classes");
}

}  // namespace
}  // namespace topkfs
