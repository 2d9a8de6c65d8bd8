// The NPY and NPZ readers, against files written by numpy itself (generated
// at test time with /usr/bin/python3) and against hand-made broken files.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hand_made_files.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::error_of;
using test::npy_bytes;

// Runs a numpy script in the test temp dir (`np` imported, `os.chdir`ed).
// Returns false (and the test should skip) when numpy is not available.
bool run_numpy(const std::string& name, const std::string& body) {
  static const bool available =
      test::run_command(std::string(TOPKFS_PYTHON) + " -c 'import numpy'").exit_code == 0;
  if (!available) return false;
  const std::string script = test::write_temp_file(
      name + ".py", "import os\nimport numpy as np\nos.chdir('" + test::temp_dir() + "')\n" + body);
  const auto result = test::run_command(std::string(TOPKFS_PYTHON) + " " + script);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0;
}

#define REQUIRE_NUMPY(name, body)                                                      \
  do {                                                                                 \
    if (!run_numpy(name, body)) GTEST_SKIP() << TOPKFS_PYTHON " with numpy is needed"; \
  } while (0)

std::string float64_payload(const std::vector<double>& values) {
  std::string bytes(values.size() * 8, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// ---- NPY ----

TEST(NpyReaderTest, HandMadeFloat64WithoutTargetLoadsWithANote) {
  const std::string path = test::write_temp_file(
      "hand.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                            float64_payload({0.5, -1, 2, 3.25, 4, 1e-3})));
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.rows(), 2);
  ASSERT_EQ(data.cols(), 3);
  EXPECT_EQ(data.format, "npy");
  EXPECT_EQ(data.features(0, 0), 0.5f);
  EXPECT_EQ(data.features(0, 1), -1.0f);
  EXPECT_EQ(data.features(1, 0), 3.25f);
  EXPECT_EQ(data.features(1, 2), 1e-3f);
  EXPECT_EQ(data.target_kind, TargetKind::None);
  ASSERT_EQ(data.notes.size(), 1u);
  EXPECT_HAS(data.notes.front(), "no target");
  EXPECT_HAS(test::as_command_line(data.notes.front()), "--y-file");
  EXPECT_EQ(data.feature_names, (std::vector<std::string>{"x0", "x1", "x2"}));
}

TEST(NpyReaderTest, FeaturesWithClassTargetFromNumpy) {
  REQUIRE_NUMPY("classes",
                "X = np.arange(12, dtype='<f8').reshape(4, 3) / 4 + 0.5\n"
                "np.save('cls_X.npy', X)\n"
                "np.save('cls_y.npy', np.array([3, 1, 3, 1], dtype='<i8'))\n");
  ReadOptions options;
  options.y_file = test::in_temp("cls_y.npy");
  const Dataset data = read_dataset(test::in_temp("cls_X.npy"), options);
  ASSERT_EQ(data.rows(), 4);
  ASSERT_EQ(data.cols(), 3);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(data.features(i, j), (i * 3 + j) / 4.0f + 0.5f);
  }
  EXPECT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"y"}));
}

TEST(NpyReaderTest, MultiOutputRealTarget) {
  REQUIRE_NUMPY("multi",
                "np.save('multi_X.npy', np.ones((3, 2), dtype='<f4'))\n"
                "np.save('multi_y.npy', np.array([[0.5, 1.5], [2.5, 3.5], [4.5, 5.25]]))\n");
  ReadOptions options;
  options.y_file = test::in_temp("multi_y.npy");
  const Dataset data = read_npy(test::in_temp("multi_X.npy"), options);
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  ASSERT_EQ(data.targets.rows(), 3);
  ASSERT_EQ(data.targets.cols(), 2);
  EXPECT_EQ(data.targets(2, 1), 5.25);
  EXPECT_EQ(data.targets(1, 0), 2.5);
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"y0", "y1"}));
}

// Fortran order is transposed into the row-major matrix, for 2-D and for an
// image stack (which exercises the general n-axis reordering).
TEST(NpyReaderTest, FortranOrderIsReordered) {
  REQUIRE_NUMPY("fortran",
                "a = np.asfortranarray(np.arange(12, dtype='<f4').reshape(4, 3))\n"
                "b = np.asfortranarray(np.arange(24, dtype='<i2').reshape(2, 3, 4))\n"
                "np.save('f2_X.npy', a)\nnp.save('f3_X.npy', b)\n"
                "assert np.lib.format.read_magic(open('f2_X.npy', 'rb')) == (1, 0)\n"
                "assert b'True' in open('f3_X.npy', 'rb').read(128)\n");
  const Dataset two = read_npy(test::in_temp("f2_X.npy"), {});
  ASSERT_EQ(two.rows(), 4);
  ASSERT_EQ(two.cols(), 3);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(two.features(i, j), static_cast<float>(i * 3 + j));
  }
  const Dataset three = read_npy(test::in_temp("f3_X.npy"), {});
  ASSERT_EQ(three.rows(), 2);
  ASSERT_EQ(three.cols(), 12);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 12; ++j) EXPECT_EQ(three.features(i, j), static_cast<float>(i * 12 + j));
  }
  ASSERT_TRUE(three.image_shape.has_value());
  EXPECT_EQ(three.image_shape->height, 3);
  EXPECT_EQ(three.image_shape->width, 4);
  EXPECT_EQ(three.feature_names[5], "px_1_1");
}

TEST(NpyReaderTest, EveryIntegerFloatAndBoolDtypeInBothByteOrders) {
  const std::vector<std::string> dtypes = {"|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4",
                                           "<u8", "|b1", "<f4", "<f8", ">f4", ">f8", ">i2",
                                           ">i4", ">i8", ">u2", ">u4", ">u8"};
  std::string body = "v = np.array([[0, 1, 5], [7, 100, 3]])\n";
  for (std::size_t k = 0; k < dtypes.size(); ++k) {
    body += fmt::format("np.save('dt{}_X.npy', v.astype('{}'))\n", k, dtypes[k]);
    body += fmt::format("assert open('dt{}_X.npy', 'rb').read(128).find(b\"'{}'\") > 0\n", k,
                        dtypes[k]);
  }
  REQUIRE_NUMPY("dtypes", body);
  const float expected[2][3] = {{0, 1, 5}, {7, 100, 3}};
  for (std::size_t k = 0; k < dtypes.size(); ++k) {
    const Dataset data = read_npy(test::in_temp(fmt::format("dt{}_X.npy", k)), {});
    ASSERT_EQ(data.rows(), 2) << dtypes[k];
    ASSERT_EQ(data.cols(), 3) << dtypes[k];
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        const float want =
            dtypes[k] == "|b1" ? (expected[i][j] != 0 ? 1.0f : 0.0f) : expected[i][j];
        EXPECT_EQ(data.features(i, j), want) << dtypes[k] << " at " << i << "," << j;
      }
    }
  }
}

TEST(NpyReaderTest, NegativeAndLargeValuesSurviveDecoding) {
  REQUIRE_NUMPY("signed",
                "np.save('neg_X.npy', np.array([[-128, 127], [-1, 0]], dtype='|i1'))\n"
                "np.save('big_X.npy', np.array([[-2**40, 2**40], [-3, 65535]], dtype='>i8'))\n");
  const Dataset small = read_npy(test::in_temp("neg_X.npy"), {});
  EXPECT_EQ(small.features(0, 0), -128.0f);
  EXPECT_EQ(small.features(1, 0), -1.0f);
  const Dataset large = read_npy(test::in_temp("big_X.npy"), {});
  EXPECT_EQ(large.features(0, 0), -1099511627776.0f);
  EXPECT_EQ(large.features(0, 1), 1099511627776.0f);
  EXPECT_EQ(large.features(1, 1), 65535.0f);
}

TEST(NpyReaderTest, HeaderVersions2And3) {
  REQUIRE_NUMPY("versions",
                "a = np.arange(6, dtype='<f8').reshape(3, 2)\n"
                "for v in (2, 3):\n"
                "    with open(f'v{v}_X.npy', 'wb') as f:\n"
                "        np.lib.format.write_array(f, a, version=(v, 0))\n");
  for (int version : {2, 3}) {
    const Dataset data = read_npy(test::in_temp(fmt::format("v{}_X.npy", version)), {});
    ASSERT_EQ(data.rows(), 3) << version;
    EXPECT_EQ(data.features(2, 1), 5.0f) << version;
  }
}

TEST(NpyReaderTest, BadMagicIsNamed) {
  const std::string path = test::write_temp_file("text.npy", "hello, this is not numpy\n");
  const auto message = error_of<DataError>([&] { read_npy(path, {}); });
  EXPECT_HAS(message, path + ": not an NPY file: it starts with bytes 68 65 6c 6c 6f 2c");
}

TEST(NpyReaderTest, PayloadShorterOrLongerThanTheShape) {
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }";
  const std::string payload = float64_payload(std::vector<double>(12, 1.0));
  const std::string short_path =
      test::write_temp_file("short.npy", npy_bytes(header, payload.substr(0, 88)));
  const auto short_message = error_of<DataError>([&] { read_npy(short_path, {}); });
  EXPECT_HAS(
      short_message,
      short_path + ": truncated: header says shape (4, 3) of '<f8' = 96 bytes, file holds 88");
  const std::string long_path =
      test::write_temp_file("long.npy", npy_bytes(header, payload + "12345678"));
  const auto long_message = error_of<DataError>([&] { read_npy(long_path, {}); });
  EXPECT_HAS(long_message, "= 96 bytes, but 104 bytes follow the header");
}

// A header claiming 2^40 x 1000 float64 is refused from the file size alone.
TEST(NpyReaderTest, AbsurdShapeIsRefusedBeforeAllocating) {
  const std::string path = test::write_temp_file(
      "huge.npy",
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1000), }",
                float64_payload({1, 2})));
  const auto message = error_of<DataError>([&] { read_npy(path, {}); });
  EXPECT_HAS(
      message,
      "truncated: header says shape (1099511627776, 1000) of '<f8' = 8796093022208000 bytes");
  const std::string overflow = test::write_temp_file(
      "overflow.npy",
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                ""));
  EXPECT_HAS(error_of<DataError>([&] { read_npy(overflow, {}); }), "impossible size");
}

TEST(NpyReaderTest, UnsupportedDtypesAreNamed) {
  REQUIRE_NUMPY("unsupported",
                "np.save('complex_X.npy', np.ones((2, 2), dtype='<c16'))\n"
                "np.save('object_X.npy', np.array([[1, 'a'], [2, 'b']], dtype=object))\n"
                "np.save('text_X.npy', np.array([['a', 'b']]))\n"
                "np.save('record_X.npy', np.zeros((2, 2), dtype=[('a', '<f4'), ('b', '<i4')]))\n");
  EXPECT_HAS(error_of<DataError>([&] { read_npy(test::in_temp("complex_X.npy"), {}); }),
             "unsupported dtype '<c16' (complex numbers)");
  EXPECT_HAS(error_of<DataError>([&] { read_npy(test::in_temp("object_X.npy"), {}); }),
             "unsupported dtype '|O' (Python objects)");
  EXPECT_HAS(error_of<DataError>([&] { read_npy(test::in_temp("text_X.npy"), {}); }),
             "unsupported dtype '<U1' (strings)");
  EXPECT_HAS(error_of<DataError>([&] { read_npy(test::in_temp("record_X.npy"), {}); }),
             "structured dtype");
}

TEST(NpyReaderTest, ShapesThatCannotBeFeaturesOrTargets) {
  const std::string flat = test::write_temp_file(
      "flat.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                            float64_payload({1, 2, 3})));
  EXPECT_HAS(error_of<DataError>([&] { read_npy(flat, {}); }),
             "features need a 2-D array (samples x features), this one has shape (3,); for a "
             "single feature save X.reshape(-1, 1)");
  const std::string features = test::write_temp_file(
      "four.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 1), }",
                            float64_payload({1, 2, 3, 4})));
  ReadOptions options;
  options.y_file = flat;
  EXPECT_HAS(error_of<DataError>([&] { read_npy(features, options); }),
             flat + ": the target has 3 rows but the features have 4");
}

TEST(NpyReaderTest, MalformedHeaderDictionary) {
  const std::string path = test::write_temp_file(
      "dict.npy", npy_bytes("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1, 1), }",
                            float64_payload({1})));
  EXPECT_HAS(error_of<DataError>([&] { read_npy(path, {}); }), "malformed NPY header");
  const std::string missing = test::write_temp_file(
      "noshape.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, }", float64_payload({1})));
  EXPECT_HAS(error_of<DataError>([&] { read_npy(missing, {}); }), "NPY header lacks 'shape'");
}

// ---- NPZ ----

TEST(NpzReaderTest, SavezAndSavezCompressedWithXAndY) {
  REQUIRE_NUMPY("npz",
                "X = np.arange(20, dtype='<f4').reshape(5, 4) * 1.5\n"
                "y = np.array([0, 1, 1, 0, 2], dtype='<i4')\n"
                "np.savez('plain.npz', X=X, Y=y)\n"
                "np.savez_compressed('packed.npz', x=X, y=y)\n");
  for (const char* name : {"plain.npz", "packed.npz"}) {
    const Dataset data = read_dataset(test::in_temp(name));
    EXPECT_EQ(data.format, "npz");
    ASSERT_EQ(data.rows(), 5) << name;
    ASSERT_EQ(data.cols(), 4) << name;
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 4; ++j) EXPECT_EQ(data.features(i, j), (i * 4 + j) * 1.5f) << name;
    }
    EXPECT_EQ(data.class_names, (std::vector<std::string>{"0", "1", "2"})) << name;
    EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 1, 0, 2})) << name;
    EXPECT_FALSE(data.predefined_split.has_value());
  }
}

// --no-target: X alone of an archive that holds Y too, and the features of
// a predefined split without its targets.
TEST(NpzReaderTest, NoTargetReadsTheFeaturesAlone) {
  REQUIRE_NUMPY("npz_no_target",
                "X = np.arange(12.0).reshape(4, 3)\n"
                "np.savez('with_y.npz', X=X, Y=np.array([0, 1, 0, 1]))\n"
                "np.savez('split_x.npz', X_train=X[:3], X_test=X[3:])\n");
  ReadOptions options;
  options.no_target = true;
  const Dataset alone = read_dataset(test::in_temp("with_y.npz"), options);
  ASSERT_EQ(alone.rows(), 4);
  EXPECT_EQ(alone.features(3, 2), 11.0f);
  EXPECT_EQ(alone.target_kind, TargetKind::None);
  const auto hint = error_of<DataError>([&] { read_dataset(test::in_temp("split_x.npz")); });
  EXPECT_NE(hint.find("no array 'y_train'"), std::string::npos) << hint;
  const Dataset split = read_dataset(test::in_temp("split_x.npz"), options);
  EXPECT_EQ(split.target_kind, TargetKind::None);
  EXPECT_EQ(split.predefined_split->test, (std::vector<std::int64_t>{3}));
}

TEST(NpzReaderTest, NamedArraysAndFortranOrderMembers) {
  REQUIRE_NUMPY(
      "npz_named",
      "X = np.asfortranarray(np.arange(6, dtype='>f8').reshape(3, 2))\n"
      "np.savez_compressed('named.npz', features=X, target=np.array([0.25, 1.5, 2.0]))\n");
  ReadOptions options;
  options.x_var = "features";
  options.y_var = "target";
  const Dataset data = read_npz(test::in_temp("named.npz"), options);
  ASSERT_EQ(data.rows(), 3);
  EXPECT_EQ(data.features(2, 0), 4.0f);
  EXPECT_EQ(data.features(1, 1), 3.0f);
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  EXPECT_EQ(data.targets(1, 0), 1.5);
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"target"}));
}

TEST(NpzReaderTest, TrainAndTestArraysBecomeAPredefinedSplit) {
  REQUIRE_NUMPY("npz_split",
                "np.savez('split.npz', X_train=np.full((3, 2), 1.0), y_train=np.array([0, 1, 0]),\n"
                "         X_test=np.full((2, 2), 2.0), y_test=np.array([1, 1]))\n");
  const Dataset data = read_dataset(test::in_temp("split.npz"));
  ASSERT_EQ(data.rows(), 5);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_EQ(data.features(2, 1), 1.0f);
  EXPECT_EQ(data.features(3, 0), 2.0f);
  ASSERT_TRUE(data.predefined_split.has_value());
  EXPECT_EQ(data.predefined_split->train, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(data.predefined_split->test, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0, 1, 1}));
}

TEST(NpzReaderTest, MissingArraysAreListed) {
  REQUIRE_NUMPY("npz_missing",
                "np.savez('nox.npz', a=np.ones((2, 2)), b=np.ones(2))\n"
                "np.savez('noy.npz', X=np.ones((2, 2)), labels=np.ones(2))\n"
                "np.savez('onlyx.npz', X=np.ones((2, 2)))\n");
  EXPECT_HAS(error_of<DataError>([&] { read_npz(test::in_temp("nox.npz"), {}); }),
             test::in_temp("nox.npz") +
                 ": no array 'X' for the features; the archive holds: a, b; pass --x-var NAME");
  EXPECT_HAS(error_of<DataError>([&] { read_npz(test::in_temp("noy.npz"), {}); }),
             ": no array 'Y' for the target; the archive holds: X, labels; pass --y-var NAME");
  const Dataset only = read_npz(test::in_temp("onlyx.npz"), {});
  EXPECT_EQ(only.target_kind, TargetKind::None);
  ASSERT_EQ(only.notes.size(), 1u);
  EXPECT_HAS(only.notes.front(), "no target");
}

TEST(NpzReaderTest, TruncatedAndCorruptArchives) {
  REQUIRE_NUMPY(
      "npz_corrupt",
      "rng = np.random.default_rng(0)\n"
      "np.savez_compressed('good.npz', X=rng.normal(size=(200, 10)), Y=rng.integers(0, 2, 200))\n"
      "np.savez('stored.npz', X=rng.normal(size=(20, 10)), Y=rng.integers(0, 2, 20))\n");
  const std::string good = read_file_bytes(test::in_temp("good.npz"));
  const std::string half = test::write_temp_file("half.npz", good.substr(0, good.size() / 2));
  EXPECT_HAS(error_of<DataError>([&] { read_npz(half, {}); }), "truncated");

  // Central directory intact, member data cut away under it.
  std::string hollow = good;
  hollow.replace(40, 600, 600, '\0');
  const std::string hollow_path = test::write_temp_file("hollow.npz", hollow);
  EXPECT_HAS(error_of<DataError>([&] { read_npz(hollow_path, {}); }), "corrupt");

  // One flipped byte inside a stored member's data: caught by the CRC.
  std::string flipped = read_file_bytes(test::in_temp("stored.npz"));
  flipped[300] = static_cast<char>(flipped[300] ^ 0x40);
  const std::string flipped_path = test::write_temp_file("flipped.npz", flipped);
  EXPECT_HAS(error_of<DataError>([&] { read_npz(flipped_path, {}); }), "CRC mismatch in X.npy");

  const std::string not_zip = test::write_temp_file("plain.npz", std::string(100, 'z'));
  EXPECT_HAS(error_of<DataError>([&] { read_npz(not_zip, {}); }), "not an NPZ file");
}

// Python's zipfile writes zip64 records past its ZIP64_LIMIT; lowering the
// limit makes a tiny archive use them all (zip64 end record and locator,
// zip64 extra fields in the central directory).
TEST(NpzReaderTest, Zip64RecordsAreRead) {
  REQUIRE_NUMPY("npz_zip64",
                "import zipfile\nzipfile.ZIP64_LIMIT = 16\n"
                "np.savez('z64.npz', X=np.arange(8.0).reshape(4, 2), Y=np.array([1, 2, 1, 2]))\n"
                "data = open('z64.npz', 'rb').read()\n"
                "assert b'PK\\x06\\x06' in data and b'PK\\x06\\x07' in data\n"
                "# saturate the classic end record so that only the zip64 one is usable\n"
                "j = data.rfind(b'PK\\x05\\x06')\n"
                "open('z64max.npz', 'wb').write(data[:j + 8] + b'\\xff' * 12 + data[j + 20:])\n");
  for (const char* name : {"z64.npz", "z64max.npz"}) {
    const Dataset data = read_npz(test::in_temp(name), {});
    ASSERT_EQ(data.rows(), 4) << name;
    EXPECT_EQ(data.features(3, 1), 7.0f) << name;
    EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0, 1})) << name;
  }
}

TEST(NpzReaderTest, MemberShapeMismatchIsNamed) {
  REQUIRE_NUMPY("npz_rows", "np.savez('rows.npz', X=np.ones((4, 2)), Y=np.ones(3))\n");
  EXPECT_HAS(error_of<DataError>([&] { read_npz(test::in_temp("rows.npz"), {}); }),
             test::in_temp("rows.npz") + ": Y.npy: the target has 3 rows but the features have 4");
}

}  // namespace
}  // namespace topkfs
