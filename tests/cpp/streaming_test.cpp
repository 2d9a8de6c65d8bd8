// Out of core: float32 NPY/NPZ features mapped instead of read, the RowSource
// seam (copy by index, blocks, row ranges), the one-pass statistics, and
// `convert` (round trips of every reader's fixtures and every shared dataset,
// atomic outputs, clear errors).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "hand_made_files.hpp"
#include "matlab_v73_fixture.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/data/scaling.hpp"
#include "topkfs/data/summary.hpp"
#include "topkfs/io/convert.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/resource_limits.hpp"

namespace topkfs {
namespace {

using test::error_of;
using test::npy_bytes;

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

std::string float32_payload(const std::vector<float>& values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

ReadOptions in_memory() {
  ReadOptions options;
  options.map = false;
  return options;
}

// True when every class name is a number (convert writes the labels by
// their names then, and by their codes otherwise).
bool numeric_class_names(const Dataset& data) {
  return std::all_of(data.class_names.begin(), data.class_names.end(), [](const std::string& name) {
    char* end = nullptr;
    std::strtod(name.c_str(), &end);
    return !name.empty() && end == name.c_str() + name.size();
  });
}

// Same shape, the same float bits in every cell, the same target (`b` read
// from the original file).
void expect_same_data(const Dataset& a, const Dataset& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(std::memcmp(a.features.data(), b.features.data(),
                        static_cast<std::size_t>(a.features.size()) * sizeof(float)),
            0)
      << what << ": the feature bits differ";
  EXPECT_EQ(a.target_kind, b.target_kind) << what;
  EXPECT_EQ(a.labels, b.labels) << what;
  if (numeric_class_names(b)) EXPECT_EQ(a.class_names, b.class_names) << what;
  EXPECT_EQ(a.targets, b.targets) << what;
  EXPECT_EQ(a.image_shape.has_value(), b.image_shape.has_value()) << what;
}

std::vector<float> counting(std::size_t count) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
  return values;
}

TEST(MappedNpy, Float32IsMappedAndReadsAsInMemory) {
  const std::string path = test::write_temp_file(
      "mapped.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6, 4), }",
                              float32_payload(counting(24))));
  const Dataset mapped = read_dataset(path);
  const Dataset loaded = read_dataset(path, in_memory());
  EXPECT_EQ(mapped.features.storage(), RowStorage::Mapped);
  EXPECT_EQ(loaded.features.storage(), RowStorage::InMemory);
  expect_same_data(mapped, loaded, path);
  // A copy of mapped data is the caller's own, in memory.
  const FeatureMatrix copy = mapped.features;
  EXPECT_EQ(copy.storage(), RowStorage::InMemory);
  EXPECT_EQ(copy(5, 3), mapped.features(5, 3));
}

TEST(MappedNpy, OtherLayoutsAreReadIntoMemory) {
  const std::string fortran = test::write_temp_file(
      "fortran.npy", npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                               float32_payload(counting(6))));
  const std::string wide = test::write_temp_file(
      "wide.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                            std::string(48, '\0')));
  for (const auto& path : {fortran, wide}) {
    EXPECT_EQ(read_dataset(path).features.storage(), RowStorage::InMemory) << path;
  }
  // Fortran order is reordered on reading: column-major 0..5 of a 2 x 3.
  EXPECT_EQ(read_dataset(fortran).features(0, 1), counting(6)[2]);
}

TEST(MappedNpy, TruncatedAndForeignFilesAreRefusedBeforeMapping) {
  const std::string truncated = test::write_temp_file(
      "short.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100, 4), }",
                             float32_payload(counting(8))));
  const std::string message = test::data_error(truncated);
  EXPECT_HAS(message, "short.npy");
  EXPECT_HAS(message, "1600 bytes");
  const std::string text = test::write_temp_file(
      "text.npy", npy_bytes("{'descr': '<U3', 'fortran_order': False, 'shape': (2, 2), }",
                            std::string(48, '\0')));
  EXPECT_HAS(test::data_error(text), "text.npy");
}

TEST(RowSource, CopyBlocksAndRangesAgreeWithTheMatrix) {
  FeatureMatrix matrix(7, 3);
  const auto values = counting(21);
  std::copy(values.begin(), values.end(), matrix.data());
  const RowSource& source = matrix;
  const std::vector<std::int64_t> rows = {6, 0, 3, 3};
  std::vector<float> out(rows.size() * 3);
  source.copy_rows(rows.data(), rows.size(), out.data());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(out[i * 3 + j], matrix(rows[i], j));
  }
  const RowRange range(source, 2, 6);
  EXPECT_EQ(range.row_count(), 4);
  std::vector<std::int64_t> firsts;
  range.for_each_block(0, 4, 3, [&](std::int64_t first, std::int64_t count, const float* block) {
    firsts.push_back(first);
    for (std::int64_t i = 0; i < count; ++i) EXPECT_EQ(block[i * 3], matrix(first + i + 2, 0));
  });
  EXPECT_EQ(firsts, (std::vector<std::int64_t>{0, 3}));
  const std::int64_t last = 3;
  range.copy_rows(&last, 1, out.data());
  EXPECT_EQ(out[2], matrix(5, 2));
  EXPECT_HAS(error_of<OptionError>([&] { RowRange(source, 5, 8); }), "7 rows");
}

TEST(RowSource, OnePassStatisticsMatchTheDefinition) {
  // A column with a mean far from 0 against its spread: the shifted sums keep
  // the variance exact where a naive sum of squares would lose it.
  FeatureMatrix matrix(4, 2);
  matrix << 1e6f + 1, 0, 1e6f - 1, 2, 1e6f + 1, 4, 1e6f - 1, 6;
  const ColumnStatistics all = column_statistics(matrix, {});
  EXPECT_DOUBLE_EQ(all.mean[0], 1e6);
  EXPECT_DOUBLE_EQ(all.sd[0], 1.0);
  EXPECT_DOUBLE_EQ(all.mean[1], 3.0);
  EXPECT_DOUBLE_EQ(all.sd[1], std::sqrt(5.0));
  const ColumnStatistics some = column_statistics(matrix, {3, 1});
  EXPECT_DOUBLE_EQ(some.low[1], 2.0);
  EXPECT_DOUBLE_EQ(some.high[1], 6.0);
  EXPECT_DOUBLE_EQ(some.sd[0], 0.0);
}

// ---- HDF5 above half the memory budget, for the methods that read by rows ----

ConvertOptions npy_outputs(const std::string& stem);  // with the convert tests

// 9 rows of 3 columns, a NaN in row 7 (0-based), a class target.
std::string hdf5_with_a_nan() {
  return test::python_fixture("by_rows.h5",
                              "import h5py\n"
                              "x = np.arange(27, dtype=np.float32).reshape(9, 3)\n"
                              "x[7, 1] = np.nan\n"
                              "with h5py.File(out, 'w') as f:\n"
                              "    f['X'] = x\n"
                              "    f['Y'] = np.array([0, 1] * 4 + [1])");
}

// A matrix that fits in half the memory budget is read whole, once (its
// chunks decompressed once, not per minibatch); a larger one comes back in
// an unnamed temporary file, mapped, with a note that says where.
TEST(Hdf5ByRows, AMatrixThatFitsTheBudgetIsReadIntoMemoryALargerOneMapped) {
  const std::string clean =
      test::python_fixture("fits.h5",
                           "import h5py\n"
                           "x = np.arange(27, dtype=np.float32).reshape(9, 3)\n"
                           "with h5py.File(out, 'w') as f:\n"
                           "    f['X'] = x\n"
                           "    f['Y'] = np.array([0, 1] * 4 + [1])");
  ASSERT_FALSE(HasFatalFailure());
  const Dataset fits = read_dataset_by_rows(clean);
  EXPECT_EQ(fits.feature_rows().storage(), RowStorage::InMemory);
  EXPECT_EQ(fits.features.cols(), 3);
  EXPECT_EQ(fits.features(8, 2), 26.0f);
  // 108 bytes of features against a budget of 200: more than half.
  test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "200");
  const Dataset mapped = read_dataset_by_rows(clean);
  EXPECT_EQ(mapped.feature_rows().storage(), RowStorage::Mapped);
  std::vector<float> row(3);
  const std::int64_t last = 8;
  mapped.feature_rows().copy_rows(&last, 1, row.data());
  EXPECT_EQ(row, (std::vector<float>{24, 25, 26}));
  ASSERT_FALSE(mapped.notes.empty());
  EXPECT_HAS(mapped.notes.back(),
             "written to an unnamed temporary file in " + resource_limits().temporary_folder);
}

// The temporary folder is the one the program using the library names (the
// command's TMPDIR, Python's tempfile.gettempdir()): the file made there is
// unnamed, so the folder stays empty while the rows are read and after;
// `convert` reads them so too. A folder where no file can be made refuses
// the read, naming the file and the folder.
TEST(Hdf5ByRows, TheMappedRowsLiveInAnUnnamedFileOfTheTemporaryFolder) {
  const std::string path =
      test::python_fixture("unnamed.h5",
                           "import h5py\n"
                           "with h5py.File(out, 'w') as f:\n"
                           "    f['X'] = np.arange(60, dtype=np.float32).reshape(20, 3)\n"
                           "    f['Y'] = np.arange(20) % 2");
  ASSERT_FALSE(HasFatalFailure());
  const std::string folder = test::in_temp("rows_folder");
  std::filesystem::create_directories(folder);
  ResourceLimits limits = resource_limits();
  const ResourceLimits before = limits;
  limits.memory_bytes = 200;
  limits.temporary_folder = folder;
  set_resource_limits(limits);
  {
    const Dataset mapped = read_dataset_by_rows(path);
    EXPECT_EQ(mapped.feature_rows().storage(), RowStorage::Mapped);
    EXPECT_TRUE(std::filesystem::is_empty(folder));
    EXPECT_EQ(mapped.features(19, 2), 59.0f);
    ConvertOptions to_npy = npy_outputs("unnamed");
    const ConvertSummary converted = convert_dataset(path, {}, to_npy);
    EXPECT_EQ(converted.storage, RowStorage::Mapped);
    set_resource_limits(before);  // the .npy target is read into memory
    ReadOptions back;
    back.y_file = to_npy.y_output;
    expect_same_data(read_dataset(to_npy.output, back), mapped, "unnamed.h5 -> .npy");
    set_resource_limits(limits);
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder));
  limits.temporary_folder = folder + "/absent";
  set_resource_limits(limits);
  const std::string refused = error_of<FileError>([&] { read_dataset_by_rows(path); });
  set_resource_limits(before);
  EXPECT_HAS(refused, path + ": cannot make a temporary file in '" + folder + "/absent'");
  EXPECT_HAS(refused, "No such file or directory");
}

// `info` reads HDF5 as select does: above half the memory budget it says
// the rows are mapped from a temporary file and summarises them (missing
// values counted, not refused) as it summarises the same rows in memory.
TEST(Hdf5ByRows, InfoReportsTheStorageSelectUsesAndSummarisesTheMappedRows) {
  const std::string path =
      test::python_fixture("info_streamed.h5",
                           "import h5py\n"
                           "x = np.arange(60, dtype=np.float32).reshape(20, 3)\n"
                           "x[4, 1] = np.nan\n"
                           "x[:, 2] = 7\n"
                           "with h5py.File(out, 'w') as f:\n"
                           "    f.create_dataset('X', data=x, chunks=(4, 3), compression='gzip')\n"
                           "    f['Y'] = np.array([0, 1] * 10)");
  ASSERT_FALSE(HasFatalFailure());
  const auto fits = test::run_cli("info " + path + " --json");
  EXPECT_HAS(fits.out, "\"storage\": \"in memory\"");
  ReadOptions keep;
  keep.nan = NanPolicy::Keep;
  const DatasetSummary whole = summarize(read_dataset(path, keep));
  // 240 bytes of features against a budget of 400 (the command run below
  // inherits it): more than half.
  test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "400");
  const DatasetSummary mapped = summarize(read_dataset_by_rows(path, keep));
  EXPECT_EQ(whole.storage, RowStorage::InMemory);
  EXPECT_EQ(mapped.storage, RowStorage::Mapped);
  EXPECT_EQ(mapped.missing_values, 1);
  EXPECT_EQ(mapped.missing_values, whole.missing_values);
  EXPECT_EQ(mapped.rows_with_missing, whole.rows_with_missing);
  EXPECT_EQ(mapped.missing_by_column, whole.missing_by_column);
  EXPECT_EQ(mapped.constant_columns, 1);
  EXPECT_EQ(mapped.feature_range.min, whole.feature_range.min);
  EXPECT_EQ(mapped.feature_range.max, 58.0);
  const auto info = test::run_cli("info " + path);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_HAS(info.out, "storage     mapped from a temporary file");
  EXPECT_HAS(info.out, "missing     1 value");
  const auto json = test::run_cli("info " + path + " --json");
  EXPECT_HAS(json.out, "\"storage\": \"mapped\"");
}

// 1000 rows x 8 columns (row r holds r * 8 .. r * 8 + 7) in gzip chunks of
// 50 rows x 4 columns, a class target.
std::string chunked_hdf5() {
  return test::python_fixture("chunked.h5",
                              "import h5py\n"
                              "x = np.arange(8000, dtype=np.float32).reshape(1000, 8)\n"
                              "with h5py.File(out, 'w') as f:\n"
                              "    f.create_dataset('X', data=x, chunks=(50, 4), "
                              "compression='gzip')\n"
                              "    f['Y'] = np.arange(1000) % 2");
}

// Rows in an order drawn with `seed`, read through the source: each row's
// values as stored (row r: r * 8 ..).
void expect_rows_read_right(const RowSource& rows, const std::vector<std::int64_t>& order) {
  std::vector<float> out(order.size() * 8);
  rows.copy_rows(order.data(), order.size(), out.data());
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (std::size_t j = 0; j < 8; ++j) {
      ASSERT_EQ(out[i * 8 + j], static_cast<float>(order[i] * 8 + static_cast<std::int64_t>(j)))
          << "row " << order[i];
    }
  }
}

// Mapped, whatever the order, with or without a planned pass, from one
// thread or two, each row reads as stored.
TEST(Hdf5ByRows, MappedRowsReadRightInAnyOrderFromOneThreadOrTwo) {
  const std::string path = chunked_hdf5();
  ASSERT_FALSE(HasFatalFailure());
  // 32 KB of features against 40 KB: mapped.
  test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "40K");
  const Dataset mapped = read_dataset_by_rows(path);
  const RowSource& rows = mapped.feature_rows();
  ASSERT_EQ(rows.storage(), RowStorage::Mapped);

  std::vector<std::int64_t> order(1000);
  for (std::int64_t i = 0; i < 1000; ++i) order[static_cast<std::size_t>(i)] = (i * 389) % 1000;
  expect_rows_read_right(rows, order);  // no plan: every row out of order
  for (const ReadAhead ahead : {ReadAhead::OnSpareCore, ReadAhead::ByReaders}) {
    rows.plan_pass(order, ahead);
    expect_rows_read_right(rows, order);
    // Two threads reading halves of a planned pass at once.
    rows.plan_pass(order, ahead);
    const std::vector<std::int64_t> first(order.begin(), order.begin() + 500);
    const std::vector<std::int64_t> second(order.begin() + 500, order.end());
    std::thread other([&] { expect_rows_read_right(rows, second); });
    expect_rows_read_right(rows, first);
    other.join();
  }
}

// The shuffle buffer over blocks: the same rows, each window's rows from at
// most `window_blocks` blocks and no block in two windows; unchanged when a
// window holds every block or the source has no blocks.
TEST(RowWindows, OrderByWindowsKeepsTheRowsAndReadsEachBlockInOneWindow) {
  std::vector<std::int64_t> shuffled(997);
  for (std::int64_t i = 0; i < 997; ++i) shuffled[static_cast<std::size_t>(i)] = (i * 613) % 997;
  for (const ReadingWindow window :
       {ReadingWindow{50, 1}, ReadingWindow{50, 3}, ReadingWindow{7, 10}}) {
    std::vector<std::int64_t> rows = shuffled;
    order_by_windows(rows, window);
    std::vector<std::int64_t> sorted = rows, expected = shuffled;
    std::sort(sorted.begin(), sorted.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sorted, expected);
    EXPECT_NE(rows, shuffled);
    // Walk the windows: a new block opens a window once the window has its
    // blocks; a block seen in an earlier window must not come back.
    std::vector<std::int64_t> window_of(997 / static_cast<std::size_t>(window.block_rows) + 1, -1);
    std::int64_t current = 0, in_window = 0;
    for (const std::int64_t row : rows) {
      auto& seen = window_of[static_cast<std::size_t>(row / window.block_rows)];
      if (seen < 0) {
        if (in_window == window.window_blocks) {
          ++current;
          in_window = 0;
        }
        seen = current;
        ++in_window;
      }
      ASSERT_EQ(seen, current) << "row " << row << " comes back to an earlier window";
    }
    // Within a window the rows keep their shuffled order.
    EXPECT_EQ(rows.front(), shuffled.front());
  }
  std::vector<std::int64_t> rows = shuffled;
  order_by_windows(rows, ReadingWindow{50, 20});  // 20 blocks hold all 997 rows
  EXPECT_EQ(rows, shuffled);
  order_by_windows(rows, ReadingWindow{});
  EXPECT_EQ(rows, shuffled);
}

// libhdf5's own read of `dataset` in `path` (H5Dread, converted to float32
// by libhdf5), in this process: the reference the reader program's output
// is compared with.
std::vector<float> libhdf5_reads(const std::string& path, const std::string& dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t data = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(data);
  std::vector<float> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0)
      << dataset;
  H5Sclose(space);
  H5Dclose(data);
  H5Fclose(file);
  return values;
}

// Every way a matrix is stored reads mapped as libhdf5 reads it whole:
// chunks inflated by the row blocks (gzip, shuffle + gzip, float64 and int16
// converted), filters left to libhdf5 (fletcher32), chunks never written
// (their fill value), a dataset not chunked, and the USPS layout's two parts
// chunked unlike each other.
TEST(Hdf5ByRows, EveryStorageOfTheMatrixReadsMappedAsLibhdf5ReadsIt) {
  const std::string path = test::python_fixture(
      "storages.h5",
      "import h5py\n"
      "rng = np.random.default_rng(2)\n"
      "x = rng.standard_normal((300, 12))\n"
      "y = np.arange(300) % 3\n"
      "with h5py.File(out, 'w') as f:\n"
      "    f.create_dataset('gzip/X', data=x.astype(np.float32), chunks=(40, 5),"
      " compression='gzip')\n"
      "    f.create_dataset('shuffled/X', data=x, chunks=(32, 12), shuffle=True,"
      " compression='gzip')\n"
      "    f.create_dataset('int16/X', data=(x * 1000).astype(np.int16), chunks=(50, 4),"
      " shuffle=True, compression='gzip')\n"
      "    f.create_dataset('fletcher/X', data=x.astype(np.float32), chunks=(40, 12),"
      " fletcher32=True, compression='gzip')\n"
      "    sparse = f.create_dataset('unwritten/X', shape=(300, 12), dtype=np.float32,"
      " chunks=(40, 6), compression='gzip', fillvalue=-2.5)\n"
      "    sparse[45:70, 0:6] = x[45:70, 0:6]\n"
      "    f.create_dataset('contiguous/X', data=x.astype(np.float32))\n"
      "    f.create_dataset('train/data', data=x[:200].astype(np.float32), chunks=(48, 12),"
      " compression='gzip')\n"
      "    f.create_dataset('test/data', data=x[200:].astype(np.float32), chunks=(30, 4),"
      " compression='gzip')\n"
      "    f['train/target'] = y[:200]\n"
      "    f['test/target'] = y[200:]\n"
      "    for name in ['gzip', 'shuffled', 'int16', 'fletcher', 'unwritten', 'contiguous']:\n"
      "        f[name + '/Y'] = y");
  ASSERT_FALSE(HasFatalFailure());
  for (const char* layout :
       {"gzip", "shuffled", "int16", "fletcher", "unwritten", "contiguous", ""}) {
    ReadOptions options;
    if (*layout != 0) options.x_path = std::string(layout) + "/X";
    std::vector<float> want;
    if (*layout != 0) {
      want = libhdf5_reads(path, options.x_path);
    } else {
      want = libhdf5_reads(path, "/train/data");
      const std::vector<float> test_rows = libhdf5_reads(path, "/test/data");
      want.insert(want.end(), test_rows.begin(), test_rows.end());
    }
    // 14 KB of features against 20 KB: mapped.
    const test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "20K");
    const Dataset mapped = read_dataset_by_rows(path, options);
    const RowSource& rows = mapped.feature_rows();
    ASSERT_EQ(rows.storage(), RowStorage::Mapped) << layout;
    ASSERT_EQ(want.size(), 300u * 12);
    std::vector<std::int64_t> all(300);
    std::iota(all.begin(), all.end(), 0);
    std::vector<float> got(300 * 12);
    rows.copy_rows(all.data(), all.size(), got.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << layout;
  }
}

// A MATLAB v7.3 X above half the memory budget is read as an HDF5 file's
// matrix is: mapped from the reader program's temporary file, each row as
// the in-memory read gives it (the dataset is the matrix transposed),
// whatever its storage; `info` says so. A v5 file is read whole.
TEST(MatByRows, AV73MatrixAboveTheBudgetIsMappedAsReadWhole) {
  const std::string path = test::matlab_v73_fixture(
      "streamed73.mat",
      "    x = np.random.default_rng(4).standard_normal((200, 9))\n"
      "    matlab_class(f.create_dataset('X', data=x.T, chunks=(9, 30), compression='gzip'),"
      " 'double')\n"
      "    matlab_class(f.create_dataset('S', data=x.T.astype(np.float32), chunks=(4, 25),"
      " shuffle=True, compression='gzip'), 'single')\n"
      "    matlab_class(f.create_dataset('C', data=x.T), 'double')\n"
      "    matlab_class(f.create_dataset('Y', data=(np.arange(200) % 2)[None, :]"
      ".astype(np.uint8)), 'uint8')\n");
  ASSERT_FALSE(HasFatalFailure());
  std::vector<std::int64_t> order(200);
  for (std::int64_t i = 0; i < 200; ++i) order[static_cast<std::size_t>(i)] = (i * 77) % 200;
  for (const char* variable : {"X", "S", "C"}) {
    ReadOptions options;
    options.x_var = variable;
    const Dataset whole = read_dataset(path, options);
    // 7.2 KB of features against 10 KB: mapped.
    const test::ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "10K");
    const Dataset mapped = read_dataset_by_rows(path, options);
    const RowSource& rows = mapped.feature_rows();
    ASSERT_EQ(rows.storage(), RowStorage::Mapped) << variable;
    EXPECT_EQ(mapped.labels, whole.labels);
    std::vector<float> got(200 * 9), want(200 * 9);
    rows.copy_rows(order.data(), order.size(), got.data());
    whole.features.copy_rows(order.data(), order.size(), want.data());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << variable;
    if (std::string(variable) == "X") {
      const auto info = test::run_cli("info " + path);
      ASSERT_EQ(info.exit_code, 0) << info.err;
      EXPECT_HAS(info.out, "storage     mapped from a temporary file");
    }
  }
  const std::string v5 = test::python_fixture(
      "whole5.mat",
      "import scipy.io\n"
      "scipy.io.savemat(out, {'X': np.ones((200, 9)), 'Y': np.arange(200) % 2})");
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(read_dataset_by_rows(v5).feature_rows().storage(), RowStorage::InMemory);
}

// A rank of a data-parallel run maps the rows whatever their size, and
// checks only its shard's values.
TEST(Hdf5ByRows, ARankMapsTheRowsAndOnlyItsShardIsChecked) {
  const std::string path = hdf5_with_a_nan();
  ASSERT_FALSE(HasFatalFailure());
  ReadOptions keep;
  keep.nan = NanPolicy::Keep;
  const Dataset whole = read_dataset(path, keep);
  // Alone, the process reads the matrix whole (it fits the memory), as
  // read_dataset does: the NaN is a missing cell, imputed by the selection.
  const Dataset alone = read_dataset_by_rows(path);
  EXPECT_EQ(alone.feature_rows().storage(), RowStorage::InMemory);
  EXPECT_TRUE(std::isnan(alone.features(7, 1)));
  // Rank 0 of 2 checks rows 0..4 only; rank 1 reads the NaN.
  ReadOptions rank0;
  rank0.shard_count = 2;
  const Dataset mapped = read_dataset_by_rows(path, rank0);
  EXPECT_EQ(mapped.feature_rows().storage(), RowStorage::Mapped);
  ASSERT_EQ(mapped.cols(), 3);
  EXPECT_EQ(mapped.feature_names, whole.feature_names);
  EXPECT_EQ(mapped.labels, whole.labels);
  const std::vector<std::int64_t> rows = {6, 2, 3, 8};
  std::vector<float> got(12), want(12);
  mapped.feature_rows().copy_rows(rows.data(), rows.size(), got.data());
  whole.features.copy_rows(rows.data(), rows.size(), want.data());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
  ReadOptions rank1 = rank0;
  rank1.shard_rank = 1;
  const std::string refused = error_of<DataError>([&] { read_dataset_by_rows(path, rank1); });
  EXPECT_HAS(refused, "sample 8, feature 2");
  // No --in-memory there: it is for .npy and NPZ files, and a rank maps its
  // rows whatever it is given.
  EXPECT_HAS(refused, "--nan drop");
  EXPECT_EQ(refused.find("--in-memory"), std::string::npos) << refused;
}

// ---- convert ----

ConvertOptions npy_outputs(const std::string& stem) {
  ConvertOptions options;
  options.output = test::in_temp(stem + "_X.npy");
  options.y_output = test::in_temp(stem + "_y.npy");
  options.block_rows = 7;  // several blocks, a short last one
  return options;
}

// Converts `path` to .npy + .npy and to one .npz, reads both back (mapped)
// and compares them with the source read in memory.
void expect_round_trip(const std::string& path, const std::string& stem,
                       const ReadOptions& read = {}) {
  const Dataset original = read_dataset(path, read);
  ConvertOptions split = npy_outputs(stem);
  if (original.target_kind == TargetKind::None) split.y_output.clear();
  const ConvertSummary summary = convert_dataset(path, read, split);
  EXPECT_EQ(summary.rows, original.rows());
  // The formats that can be read in parts are converted by row blocks; an
  // HDF5 matrix within half the memory budget comes whole from the reader
  // program (above it, mapped: TheMappedRowsLiveInAnUnnamedFile... below).
  const Format format = read.format == Format::Auto ? detect_format(path) : read.format;
  const bool text = format == Format::Csv || format == Format::Tsv || format == Format::Libsvm;
  if (format == Format::Idx || (text && !has_gzip_magic(path))) {
    EXPECT_EQ(summary.storage, RowStorage::RowBlocks) << path;
  }
  if (format == Format::Hdf5) EXPECT_EQ(summary.storage, RowStorage::InMemory) << path;
  ReadOptions back;
  back.y_file = split.y_output;
  const Dataset from_npy = read_dataset(split.output, back);
  EXPECT_EQ(from_npy.features.storage(), RowStorage::Mapped) << path;
  expect_same_data(from_npy, original, path + " -> .npy");

  ConvertOptions packed;
  packed.output = test::in_temp(stem + ".npz");
  convert_dataset(path, read, packed);
  const Dataset from_npz = read_dataset(packed.output);
  EXPECT_EQ(from_npz.features.storage(), RowStorage::Mapped) << path;
  expect_same_data(from_npz, original, path + " -> .npz");
}

TEST(Convert, RoundTripsEveryTextFixture) {
  expect_round_trip(test::fixture("flowers.csv"), "flowers");
  expect_round_trip(test::fixture("sklearn_dump.csv"), "dump_csv");
  expect_round_trip(test::fixture("sklearn_dump.svm"), "dump_svm");
  expect_round_trip(test::fixture("small.svm"), "small_svm");
}

TEST(Convert, RoundTripsHandMadeBinaryFormats) {
  // IDX: 5 images of 2 x 3 bytes and their labels.
  std::string images = test::idx_header({5, 2, 3});
  for (int i = 0; i < 30; ++i) images.push_back(static_cast<char>(i * 7));
  std::string labels = test::idx_header({5});
  labels[2] = 0x08;
  for (char label : {1, 0, 1, 2, 0}) labels.push_back(label);
  const std::string image_path = test::write_temp_file("tiny-images-idx3-ubyte", images);
  ReadOptions idx;
  idx.labels_path = test::write_temp_file("tiny-labels-idx1-ubyte", labels);
  expect_round_trip(image_path, "idx", idx);
  EXPECT_TRUE(read_dataset(test::in_temp("idx.npz")).image_shape.has_value());

  // MAT v5 with a real target.
  const std::string mat = test::write_temp_file(
      "small.mat",
      test::mat_v5_bytes({{"X", 3, 2, {1, 2, 3, 4, 5, 6}}, {"Y", 3, 1, {0.5, 1.25, -2}}}));
  expect_round_trip(mat, "mat");

  // NPY of float64 features with a string-free integer target.
  const std::string x = test::write_temp_file(
      "f8.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
                          std::string(48, '\x3f')));
  // (Not "f8_y.npy": the round trip writes that, and an output that names
  // the target file it reads is refused.)
  const std::string y = test::write_temp_file(
      "f8_target.npy", npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                                 std::string("\x01\0\0\0\x02\0\0\0\x01\0\0\0", 12)));
  ReadOptions npy;
  npy.y_file = y;
  expect_round_trip(x, "f8", npy);
}

// Text files whose reading has corners (a shape line, a header of column
// numbers, CRLF, blank lines, quoted cells holding the delimiter and a line
// end, text classes; LIBSVM comments, query ids and absent entries), converted
// by passes over the file, equal the readers' matrices.
TEST(Convert, StreamedTextEqualsTheReaders) {
  const std::pair<const char*, const char*> files[] = {
      {"shape.csv", "3,2\n1.5, 2\n3,4\n\n5,6\n"},
      {"numbered.csv", "0,1,2,3\r\n1,2,3,0\r\n4,5,6,1\r\n7,8,9,0\r\n"},
      {"quoted.csv", "a,b,kind\n1,2,\"x, \"\"y\"\"\"\n3,4,\"two\nlines\"\n5,6,\"x, \"\"y\"\"\"\n"},
      {"tabs.tsv", "a\tb\ty\n1\t2\t0.5\n3\t4\t-1\n"},
      {"sparse.svm", "# a comment\n+1 qid:3 1:0.5 4:2\n-1 2:1 # tail\n\n+1 3:-7.25\n"}};
  for (const auto& [name, text] : files) {
    expect_round_trip(test::write_temp_file(name, text), std::string("corner_") + name);
  }
}

// A NaN feature is refused by the first pass, naming the sample and the
// feature as the in-memory reader does, and nothing is written.
TEST(Convert, StreamedTextRefusesANaNAsTheReaderDoes) {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"nan.csv", "a,b,y\n1,2,0\n3,nan,1\n"}, {"nan.svm", "0 1:1\n1 1:2 2:nan\n"}}) {
    const std::string path = test::write_temp_file(name, text);
    ReadOptions strict;
    strict.nan = NanPolicy::Error;
    const std::string expected = error_of<DataError>([&] { read_dataset(path, strict); });
    EXPECT_HAS(expected, "sample 2, feature 2");
    ConvertOptions options;
    options.output = test::in_temp(name + ".npz");
    EXPECT_EQ(error_of<DataError>([&] { convert_dataset(path, strict, options); }), expected);
    EXPECT_FALSE(test::path_exists(options.output));
    // Under the default (--nan impute) convert writes the table encoded,
    // the missing cell imputed, with the encoding beside it.
    const ConvertSummary encoded = convert_dataset(path, {}, options);
    EXPECT_EQ(encoded.columns, 3);  // a, b and b's missing indicator
    EXPECT_TRUE(test::path_exists(encoding_sidecar(options.output)));
  }
}

TEST(Convert, ClassNamesThatAreNotNumbersBecomeCodesWithANote) {
  const std::string path = test::write_temp_file("named.csv", "a,b,y\n1,2,cat\n3,4,dog\n5,6,cat\n");
  ConvertOptions options;
  options.output = test::in_temp("named.npz");
  const ConvertSummary summary = convert_dataset(path, {}, options);
  ASSERT_EQ(summary.notes.size(), 1u);
  EXPECT_HAS(summary.notes.front(), "0 = cat, 1 = dog");
  const Dataset back = read_dataset(options.output);
  EXPECT_EQ(back.labels, (std::vector<std::int32_t>{0, 1, 0}));
}

TEST(Convert, BadRequestsAreRefusedBeforeWriting) {
  const std::string csv = test::fixture("flowers.csv");
  ConvertOptions options;
  options.output = test::in_temp("flowers.csv.out");
  EXPECT_HAS(error_of<OptionError>([&] { convert_dataset(csv, {}, options); }), ".npy");
  options.output = test::in_temp("no_target.npy");
  EXPECT_HAS(error_of<OptionError>([&] { convert_dataset(csv, {}, options); }), "--y-output");
  EXPECT_FALSE(test::path_exists(options.output));
  const std::string npy = test::write_temp_file(
      "self.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                            float32_payload(counting(4))));
  options.output = npy;
  EXPECT_HAS(error_of<OptionError>([&] { convert_dataset(npy, {}, options); }), "replace");
  options.output = test::in_temp("both.npz");
  options.y_output = test::in_temp("y.npy");
  EXPECT_HAS(error_of<OptionError>([&] { convert_dataset(csv, {}, options); }), ".npz output");
  // A --y-output for data without a target was skipped silently.
  options.output = test::in_temp("features_only.npy");
  ReadOptions features_only;
  features_only.no_target = true;
  const std::string numbers = test::write_temp_file("numbers.csv", "a,b\n1,2\n3,4\n");
  EXPECT_HAS(error_of<OptionError>([&] { convert_dataset(numbers, features_only, options); }),
             "has no target to write");
  EXPECT_FALSE(test::path_exists(options.output));
  EXPECT_FALSE(test::path_exists(options.y_output));
}

TEST(Convert, AFailingOutputLeavesNoFileBehind) {
  // The target's path is a directory: the features were already written to a
  // temporary file, which must go with the error.
  ConvertOptions options;
  options.output = test::in_temp("atomic_X.npy");
  options.y_output = test::in_temp("a_directory.npy");
  ASSERT_EQ(std::system(("mkdir -p " + options.y_output).c_str()), 0);
  error_of<FileError>([&] { convert_dataset(test::fixture("flowers.csv"), {}, options); });
  EXPECT_FALSE(test::path_exists(options.output));
  const auto listing = test::run_command("ls " + test::temp_dir());
  EXPECT_EQ(listing.out.find("atomic_X.npy"), std::string::npos) << listing.out;
}

TEST(ConvertCli, WritesThePairInfoSaysMappedAndBadOutputsAreUsageErrors) {
  const std::string x = test::in_temp("cli_X.npy");
  const std::string y = test::in_temp("cli_y.npy");
  const auto converted = test::run_cli("convert " + test::fixture("flowers.csv") + " --output " +
                                       x + " --y-output " + y);
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_HAS(converted.out, "wrote");
  const auto info = test::run_cli("info " + x + " --y-file " + y);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_HAS(info.out, "storage     mapped from the file");
  const auto loaded = test::run_cli("info " + x + " --y-file " + y + " --in-memory --json");
  EXPECT_HAS(loaded.out, "\"storage\": \"in memory\"");
  const auto bad = test::run_cli("convert " + test::fixture("flowers.csv") + " --output " +
                                 test::in_temp("cli.txt"));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_HAS(bad.err, "topkfs: error:");
  const auto same = test::run_cli("convert " + x + " --output " + x);
  EXPECT_EQ(same.exit_code, 2) << same.err;
}

// The streaming reader against the in-memory one on every shared dataset
// converted to .npy (and .npz).
class SharedDataRoundTrip : public testing::TestWithParam<const char*> {};

TEST_P(SharedDataRoundTrip, MappedEqualsInMemory) {
  const std::string relative = GetParam();
  const std::string folder = relative.substr(0, relative.find('/'));
  TOPKFS_REQUIRE_SHARED_DATA(folder);
  std::string stem = folder;
  std::replace(stem.begin(), stem.end(), '-', '_');
  expect_round_trip(test::shared_data(relative), stem);
}

INSTANTIATE_TEST_SUITE_P(Every, SharedDataRoundTrip,
                         testing::Values("mnist", "fashion-mnist", "usps/usps.h5",
                                         "coil20/COIL20.mat", "allaml/ALLAML.mat",
                                         "pyrim/pyrim.csv", "kin8nm/kin8nm.csv",
                                         "ailerons/ailerons.csv", "cpu_act/cpu_act.csv"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           std::string name =
                               std::string(info.param).substr(0, std::string(info.param).find('/'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace topkfs
