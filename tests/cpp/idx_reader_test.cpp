// The IDX reader: the real MNIST and Fashion-MNIST folders, single files,
// every element type, and the malformed files a user may hand it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::error_of;

namespace fs = std::filesystem;
using test::shared_data;

std::string big_endian32(std::uint32_t value) {
  std::string bytes(4, '\0');
  for (int i = 0; i < 4; ++i)
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(value >> (24 - 8 * i));
  return bytes;
}

std::string idx_bytes(unsigned char type, const std::vector<std::uint32_t>& dims,
                      const std::string& payload) {
  std::string bytes{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (auto d : dims) bytes += big_endian32(d);
  return bytes + payload;
}

std::string uint8_payload(std::size_t count, unsigned seed = 1) {
  std::string bytes(count, '\0');
  for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<char>((i * 37 + seed * 11) % 256);
  return bytes;
}

// A fresh folder under the test temp dir.
std::string make_folder(const std::string& name) {
  const std::string path = test::temp_dir() + "/" + name;
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

std::string write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string gzip_copy(const std::string& path) {
  const auto result = test::run_command("gzip -n -k -f '" + path + "'");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return path + ".gz";
}

double sum_rows(const FeatureMatrix& features, Eigen::Index begin, Eigen::Index end) {
  double sum = 0;
  for (Eigen::Index i = begin; i < end; ++i) {
    for (Eigen::Index j = 0; j < features.cols(); ++j) sum += features(i, j);
  }
  return sum;
}

std::vector<std::int64_t> counts_in(const Dataset& data, const std::vector<std::int64_t>& rows) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(data.num_classes()), 0);
  for (auto row : rows)
    ++counts[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(row)])];
  return counts;
}

void expect_mnist_layout(const Dataset& data) {
  ASSERT_EQ(data.rows(), 70000);
  ASSERT_EQ(data.cols(), 784);
  ASSERT_TRUE(data.image_shape.has_value());
  EXPECT_EQ(data.image_shape->height, 28);
  EXPECT_EQ(data.image_shape->width, 28);
  EXPECT_EQ(data.image_shape->channels, 1);
  ASSERT_TRUE(data.predefined_split.has_value());
  ASSERT_EQ(data.predefined_split->train.size(), 60000u);
  ASSERT_EQ(data.predefined_split->test.size(), 10000u);
  EXPECT_EQ(data.predefined_split->train.front(), 0);
  EXPECT_EQ(data.predefined_split->train.back(), 59999);
  EXPECT_EQ(data.predefined_split->test.front(), 60000);
  EXPECT_EQ(data.predefined_split->test.back(), 69999);
  EXPECT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names,
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(data.feature_names.front(), "px_0_0");
  EXPECT_EQ(data.feature_names[29], "px_1_1");
  EXPECT_EQ(data.feature_names.back(), "px_27_27");
  EXPECT_EQ(data.features.minCoeff(), 0.0f);
  EXPECT_EQ(data.features.maxCoeff(), 255.0f);  // raw pixels: scaling is not the reader's job
}

TEST(IdxReaderTest, MnistFolder) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  const Dataset data = read_dataset(shared_data("mnist"));
  expect_mnist_layout(data);
  EXPECT_EQ(data.format, "idx");
  EXPECT_EQ(
      counts_in(data, data.predefined_split->train),
      (std::vector<std::int64_t>{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}));
  EXPECT_EQ(counts_in(data, data.predefined_split->test),
            (std::vector<std::int64_t>{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}));
  // First and last labels and pixel sums, from numpy on the same files.
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[0])], "5");
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[59999])], "8");
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[60000])], "7");
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[69999])], "6");
  EXPECT_EQ(data.features(0, 14 * 28 + 14), 240.0f);
  EXPECT_EQ(sum_rows(data.features, 0, 1), 27525.0);
  EXPECT_EQ(sum_rows(data.features, 69999, 70000), 41833.0);
  EXPECT_EQ(sum_rows(data.features, 0, 60000), 1567298545.0);
  EXPECT_EQ(sum_rows(data.features, 60000, 70000), 264923200.0);
}

TEST(IdxReaderTest, FashionMnistFolder) {
  TOPKFS_REQUIRE_SHARED_DATA("fashion-mnist");
  const Dataset data = read_idx(shared_data("fashion-mnist"), {});
  expect_mnist_layout(data);
  EXPECT_EQ(counts_in(data, data.predefined_split->train), std::vector<std::int64_t>(10, 6000));
  EXPECT_EQ(counts_in(data, data.predefined_split->test), std::vector<std::int64_t>(10, 1000));
  EXPECT_EQ(sum_rows(data.features, 0, 60000), 3431114169.0);
  EXPECT_EQ(sum_rows(data.features, 60000, 70000), 573469082.0);
}

TEST(IdxReaderTest, FashionMnistSingleFileFindsItsLabels) {
  TOPKFS_REQUIRE_SHARED_DATA("fashion-mnist");
  const Dataset data = read_dataset(shared_data("fashion-mnist/train-images-idx3-ubyte.gz"));
  ASSERT_EQ(data.rows(), 60000);
  ASSERT_EQ(data.cols(), 784);
  EXPECT_FALSE(data.predefined_split.has_value());
  EXPECT_EQ(data.image_shape->height, 28);
  EXPECT_EQ(class_counts(data), std::vector<std::int64_t>(10, 6000));
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[0])], "9");
  EXPECT_EQ(data.class_names[static_cast<std::size_t>(data.labels[59999])], "5");
  EXPECT_EQ(sum_rows(data.features, 0, 1), 76247.0);
}

TEST(IdxReaderTest, SingleFileWithExplicitLabels) {
  TOPKFS_REQUIRE_SHARED_DATA("fashion-mnist");
  ReadOptions options;
  options.labels_path = shared_data("fashion-mnist/t10k-labels-idx1-ubyte.gz");
  const Dataset data = read_idx(shared_data("fashion-mnist/t10k-images-idx3-ubyte.gz"), options);
  ASSERT_EQ(data.rows(), 10000);
  EXPECT_EQ(class_counts(data), std::vector<std::int64_t>(10, 1000));
  EXPECT_EQ(sum_rows(data.features, 9999, 10000), 24390.0);
}

TEST(IdxReaderTest, TruncatedRealGzipIsReported) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  const std::string whole = read_file_bytes(shared_data("mnist/train-images-idx3-ubyte.gz"));
  const std::string folder = make_folder("half-gzip");
  const std::string images =
      write_file(folder + "/train-images-idx3-ubyte.gz", whole.substr(0, whole.size() / 2));
  ReadOptions options;
  options.labels_path = shared_data("mnist/train-labels-idx1-ubyte.gz");
  const auto message = error_of<DataError>([&] { read_idx(images, options); });
  EXPECT_NE(message.find(images), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

// ---- small files written by the tests ----

// A folder of four plain IDX files named with '.' (train-images.idx3-ubyte).
TEST(IdxReaderTest, SmallFolderWithDottedNamesStacksTrainThenTest) {
  const std::string folder = make_folder("dotted");
  write_file(folder + "/train-images.idx3-ubyte", idx_bytes(0x08, {3, 2, 2}, uint8_payload(12)));
  write_file(folder + "/train-labels.idx1-ubyte", idx_bytes(0x08, {3}, std::string("\1\2\1", 3)));
  write_file(folder + "/t10k-images.idx3-ubyte", idx_bytes(0x08, {2, 2, 2}, uint8_payload(8, 7)));
  write_file(folder + "/t10k-labels.idx1-ubyte", idx_bytes(0x08, {2}, std::string("\2\1", 2)));
  const Dataset data = read_dataset(folder);
  ASSERT_EQ(data.rows(), 5);
  ASSERT_EQ(data.cols(), 4);
  const std::string train = uint8_payload(12), test = uint8_payload(8, 7);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(data.features(0, j), static_cast<unsigned char>(train[static_cast<std::size_t>(j)]));
    EXPECT_EQ(data.features(2, j),
              static_cast<unsigned char>(train[static_cast<std::size_t>(8 + j)]));
    EXPECT_EQ(data.features(3, j), static_cast<unsigned char>(test[static_cast<std::size_t>(j)]));
  }
  EXPECT_EQ(data.predefined_split->train, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(data.predefined_split->test, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"px_0_0", "px_0_1", "px_1_0", "px_1_1"}));
}

// Each type code, big-endian, decoded to the same values.
TEST(IdxReaderTest, DecodesEveryElementTypeBigEndian) {
  const std::vector<double> values = {0, 1, -2, 100, -128, 127};
  struct Case {
    unsigned char code;
    int size;
  };
  for (const Case& c :
       {Case{0x08, 1}, Case{0x09, 1}, Case{0x0B, 2}, Case{0x0C, 4}, Case{0x0D, 4}, Case{0x0E, 8}}) {
    std::string payload;
    for (double v : values) {
      const double stored = c.code == 0x08 ? (v < 0 ? v + 256 : v) : v;
      std::uint64_t bits = 0;
      if (c.code == 0x0D) {
        const float f = static_cast<float>(stored);
        std::uint32_t b32;
        std::memcpy(&b32, &f, 4);
        bits = b32;
      } else if (c.code == 0x0E) {
        std::memcpy(&bits, &stored, 8);
      } else {
        bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(stored));
      }
      for (int i = c.size - 1; i >= 0; --i) payload += static_cast<char>(bits >> (8 * i));
    }
    const std::string name = fmt::format("type{:02x}-images-idx3-ubyte", c.code);
    const std::string images = test::write_temp_file(name, idx_bytes(c.code, {3, 2}, payload));
    test::write_temp_file(fmt::format("type{:02x}-labels-idx1-ubyte", c.code),
                          idx_bytes(0x08, {3}, std::string("\0\1\0", 3)));
    const Dataset data = read_idx(images, {});
    ASSERT_EQ(data.rows(), 3) << name;
    ASSERT_EQ(data.cols(), 2) << name;
    EXPECT_FALSE(data.image_shape.has_value()) << "a 2-D file is a plain matrix";
    for (int k = 0; k < 6; ++k) {
      const double expected = c.code == 0x08 && values[static_cast<std::size_t>(k)] < 0
                                  ? values[static_cast<std::size_t>(k)] + 256
                                  : values[static_cast<std::size_t>(k)];
      EXPECT_EQ(data.features(k / 2, k % 2), static_cast<float>(expected))
          << name << " element " << k;
    }
  }
}

TEST(IdxReaderTest, GzipAndPlainGiveTheSameData) {
  const std::string images = test::write_temp_file(
      "same-images-idx3-ubyte", idx_bytes(0x08, {20, 28, 28}, uint8_payload(20 * 784)));
  test::write_temp_file("same-labels-idx1-ubyte",
                        idx_bytes(0x08, {20}, std::string(10, '\3') + std::string(10, '\4')));
  const std::string gz_folder = make_folder("gz-pair");
  fs::copy_file(gzip_copy(images), gz_folder + "/same-images-idx3-ubyte.gz");
  fs::copy_file(gzip_copy(test::temp_dir() + "/same-labels-idx1-ubyte"),
                gz_folder + "/same-labels-idx1-ubyte.gz");
  const Dataset plain = read_idx(images, {});
  const Dataset packed = read_idx(gz_folder + "/same-images-idx3-ubyte.gz", {});
  EXPECT_EQ(plain.features, packed.features);
  EXPECT_EQ(plain.labels, packed.labels);
}

// ---- malformed files ----

TEST(IdxReaderTest, WrongMagicIsNamed) {
  const std::string path =
      test::write_temp_file("zip-images-idx3-ubyte", std::string("PK\x03\x04 not idx", 12));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find(path + ": not an IDX file: magic 0x50 0x4B 0x03 0x04"), std::string::npos)
      << message;
}

TEST(IdxReaderTest, UnsupportedTypeCodeIsNamed) {
  const std::string path =
      test::write_temp_file("type0a-images-idx3-ubyte", idx_bytes(0x0A, {1, 2, 2}, "abcd"));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find("unsupported IDX type code 0x0A"), std::string::npos) << message;
}

TEST(IdxReaderTest, ShortPayloadIsTruncated) {
  const std::string path = test::write_temp_file("short-images-idx3-ubyte",
                                                 idx_bytes(0x08, {3, 2, 2}, uint8_payload(10)));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find(path + ": truncated: header says 3 x 2 x 2 = 12 bytes, file holds 10"),
            std::string::npos)
      << message;
  // The same inside gzip is found while streaming.
  test::write_temp_file("short-labels-idx1-ubyte", idx_bytes(0x08, {3}, std::string("\0\1\0", 3)));
  const auto gz = gzip_copy(path);
  const auto gz_message = error_of<DataError>([&] { read_idx(gz, {}); });
  EXPECT_NE(gz_message.find("truncated: header says 3 x 2 x 2 = 12 bytes, file holds 10"),
            std::string::npos)
      << gz_message;
}

TEST(IdxReaderTest, LongPayloadIsAnError) {
  const std::string path = test::write_temp_file("long-images-idx3-ubyte",
                                                 idx_bytes(0x08, {3, 2, 2}, uint8_payload(14)));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find("header says 3 x 2 x 2 = 12 bytes, but the file holds 14"),
            std::string::npos)
      << message;
  test::write_temp_file("long-labels-idx1-ubyte", idx_bytes(0x08, {3}, std::string("\0\1\0", 3)));
  const auto gz_message = error_of<DataError>([&] { read_idx(gzip_copy(path), {}); });
  EXPECT_NE(gz_message.find("header says 3 x 2 x 2 = 12 bytes, but the file holds 14"),
            std::string::npos)
      << gz_message;
}

TEST(IdxReaderTest, TruncatedGzipIsReported) {
  const std::string path = test::write_temp_file(
      "cut-images-idx3-ubyte", idx_bytes(0x08, {50, 28, 28}, uint8_payload(50 * 784)));
  const std::string gz = read_file_bytes(gzip_copy(path));
  const std::string cut =
      test::write_temp_file("cut-images-idx3-ubyte.gz", gz.substr(0, gz.size() / 2));
  ReadOptions options;
  options.labels_path =
      test::write_temp_file("cut-labels", idx_bytes(0x08, {50}, std::string(50, '\1')));
  const auto message = error_of<DataError>([&] { read_idx(cut, options); });
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(IdxReaderTest, ImagesAndLabelsCountsMustAgree) {
  const std::string images = test::write_temp_file("count-images-idx3-ubyte",
                                                   idx_bytes(0x08, {3, 2, 2}, uint8_payload(12)));
  const std::string labels = test::write_temp_file("count-labels-idx1-ubyte",
                                                   idx_bytes(0x08, {2}, std::string("\0\1", 2)));
  const auto message = error_of<DataError>([&] { read_idx(images, {}); });
  EXPECT_NE(message.find(labels + ": 2 labels, but " + images + " holds 3 images"),
            std::string::npos)
      << message;
}

// 2^31 x 28 x 28 bytes would be 1.7 TB: refused from the header alone.
TEST(IdxReaderTest, AbsurdRowCountIsRefusedBeforeAllocating) {
  const std::string path = test::write_temp_file(
      "huge-images-idx3-ubyte", idx_bytes(0x08, {0x80000000u, 28, 28}, uint8_payload(784)));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find("truncated: header says 2147483648 x 28 x 28 = 1683627180032 bytes, file "
                         "holds 784"),
            std::string::npos)
      << message;
  const auto gz = gzip_copy(path);
  const auto gz_message = error_of<DataError>([&] { read_idx(gz, {}); });
  EXPECT_NE(gz_message.find("corrupt header: it says 2147483648 x 28 x 28 = 1683627180032 bytes, "
                            "more than a gzip file of"),
            std::string::npos)
      << gz_message;
}

TEST(IdxReaderTest, OverflowingHeaderIsRefused) {
  const std::string path = test::write_temp_file(
      "overflow-images-idx3-ubyte",
      idx_bytes(0x0E, {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, uint8_payload(64)));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find("impossible size"), std::string::npos) << message;
}

TEST(IdxReaderTest, FolderMissingAFileListsWhatItHolds) {
  const std::string folder = make_folder("three-of-four");
  write_file(folder + "/train-images-idx3-ubyte", idx_bytes(0x08, {1, 2, 2}, uint8_payload(4)));
  write_file(folder + "/train-labels-idx1-ubyte", idx_bytes(0x08, {1}, std::string(1, '\0')));
  write_file(folder + "/t10k-images-idx3-ubyte.gz", "x");
  const auto message = error_of<FileError>([&] { read_dataset(folder); });
  EXPECT_NE(
      message.find(folder + ": not an MNIST-style folder: missing t10k-labels-idx1-ubyte[.gz]"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("the folder holds: t10k-images-idx3-ubyte.gz, train-images-idx3-ubyte, "
                         "train-labels-idx1-ubyte"),
            std::string::npos)
      << message;
}

TEST(IdxReaderTest, LabelsFileGivenAsImagesIsExplained) {
  const std::string path = test::write_temp_file("only-labels-idx1-ubyte",
                                                 idx_bytes(0x08, {3}, std::string("\0\1\2", 3)));
  const auto message = error_of<DataError>([&] { read_idx(path, {}); });
  EXPECT_NE(message.find("holds labels, not images"), std::string::npos) << message;
}

TEST(IdxReaderTest, ImagesWithoutLabelsAskForThem) {
  const std::string odd =
      test::write_temp_file("digits.idx", idx_bytes(0x08, {1, 2, 2}, uint8_payload(4)));
  const auto message = error_of<DataError>([&] { read_idx(odd, {}); });
  EXPECT_NE(message.find("--labels FILE"), std::string::npos) << message;
  const std::string lonely = test::write_temp_file("lonely-images-idx3-ubyte",
                                                   idx_bytes(0x08, {1, 2, 2}, uint8_payload(4)));
  const auto missing = error_of<FileError>([&] { read_idx(lonely, {}); });
  EXPECT_NE(missing.find("lonely-labels-idx1-ubyte is missing"), std::string::npos) << missing;
}

// --no-target (new images to transform): an images file alone, and a folder
// of the two images files, read without labels; the pixels and the split as
// with labels. Naming labels beside it is a usage error.
TEST(IdxReaderTest, NoTargetReadsTheImagesWithoutLabels) {
  ReadOptions options;
  options.no_target = true;
  const std::string lonely = test::write_temp_file("unlabelled-images-idx3-ubyte",
                                                   idx_bytes(0x08, {3, 2, 2}, uint8_payload(12)));
  const auto hint = error_of<FileError>([&] { read_dataset(lonely); });
  EXPECT_NE(hint.find("is read with --no-target"), std::string::npos) << hint;
  const Dataset single = read_dataset(lonely, options);
  ASSERT_EQ(single.rows(), 3);
  ASSERT_EQ(single.cols(), 4);
  EXPECT_EQ(single.target_kind, TargetKind::None);
  EXPECT_TRUE(single.labels.empty());
  EXPECT_EQ(single.features(2, 3), static_cast<unsigned char>(uint8_payload(12)[11]));
  ASSERT_TRUE(single.image_shape.has_value());
  EXPECT_EQ(single.image_shape->height, 2);

  const std::string folder = make_folder("unlabelled");
  write_file(folder + "/train-images-idx3-ubyte", idx_bytes(0x08, {3, 2, 2}, uint8_payload(12)));
  write_file(folder + "/t10k-images-idx3-ubyte", idx_bytes(0x08, {2, 2, 2}, uint8_payload(8, 7)));
  const auto missing = error_of<FileError>([&] { read_dataset(folder); });
  EXPECT_NE(missing.find("missing train-labels-idx1-ubyte"), std::string::npos) << missing;
  const Dataset stacked = read_dataset(folder, options);
  ASSERT_EQ(stacked.rows(), 5);
  EXPECT_EQ(stacked.target_kind, TargetKind::None);
  EXPECT_EQ(stacked.features(3, 0), static_cast<unsigned char>(uint8_payload(8, 7)[0]));
  EXPECT_EQ(stacked.predefined_split->train, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(stacked.predefined_split->test, (std::vector<std::int64_t>{3, 4}));

  options.labels_path = lonely;
  const auto both = error_of<OptionError>([&] { read_dataset(folder, options); });
  EXPECT_NE(both.find("--labels and --no-target exclude each other"), std::string::npos) << both;
}

TEST(IdxReaderTest, LabelsWithAnImageShapeAreRefused) {
  const std::string images = test::write_temp_file("shape-images-idx3-ubyte",
                                                   idx_bytes(0x08, {2, 2, 2}, uint8_payload(8)));
  ReadOptions options;
  options.labels_path = images;
  const auto message = error_of<DataError>([&] { read_idx(images, options); });
  EXPECT_NE(message.find("a labels file must be 1-D, this one is 2 x 2 x 2"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace topkfs
