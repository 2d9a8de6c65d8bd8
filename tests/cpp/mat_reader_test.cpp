// The MATLAB .mat reader: the shared COIL20 and ALLAML files, round trips of
// files written by scipy.io.savemat (v5) and by matio (v7.3) and h5py (v7.3 as
// MATLAB lays it out), and the error messages.
#include <matio.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "matlab_v73_fixture.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::data_error;
using test::matlab_v73_fixture;
using test::python_fixture;
using test::shared_data;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// X[i, j] = 10 i + j + 0.25: distinct values, so a transposed read shows.
const char* const kDistinctX =
    "X = (10.0 * np.arange(3)[:, None] + np.arange(4)[None, :] + 0.25)\n";

void expect_distinct_x(const Dataset& data) {
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 4);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(data.features(i, j), 10.0f * i + j + 0.25f) << i << "," << j;
  }
}

TEST(MatReader, Coil20) {
  TOPKFS_REQUIRE_SHARED_DATA("coil20");
  const Dataset data = read_dataset(shared_data("coil20/COIL20.mat"));
  EXPECT_EQ(data.format, "mat");
  ASSERT_EQ(data.rows(), 1440);
  ASSERT_EQ(data.cols(), 1024);
  EXPECT_EQ(data.features.minCoeff(), 0.0f);
  EXPECT_EQ(data.features.maxCoeff(), 1.0f);
  // Values checked with scipy.io.loadmat: X[0, 0] = 4/255, X[1439, 1023] = 0.
  EXPECT_FLOAT_EQ(data.features(0, 0), 4.0f / 255.0f);
  EXPECT_EQ(data.features(1439, 1023), 0.0f);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  ASSERT_EQ(data.num_classes(), 20);
  for (int c = 0; c < 20; ++c) EXPECT_EQ(data.class_names[c], std::to_string(c + 1));
  for (auto count : class_counts(data)) EXPECT_EQ(count, 72);
  EXPECT_EQ(data.labels.front(), 0);
  EXPECT_EQ(data.labels.back(), 19);
  EXPECT_FALSE(data.image_shape.has_value());  // 32x32, but the file does not say so
  EXPECT_FALSE(data.predefined_split.has_value());
}

TEST(MatReader, Allaml) {
  TOPKFS_REQUIRE_SHARED_DATA("allaml");
  const Dataset data = read_dataset(shared_data("allaml/ALLAML.mat"));
  ASSERT_EQ(data.rows(), 72);
  ASSERT_EQ(data.cols(), 7129);
  // First and last values as scipy.io.loadmat gives them.
  EXPECT_FLOAT_EQ(data.features(0, 0), -1.017172f);
  EXPECT_FLOAT_EQ(data.features(0, 1), 0.074113f);
  EXPECT_FLOAT_EQ(data.features(71, 7128), -0.732241f);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(class_counts(data), (std::vector<std::int64_t>{47, 25}));
}

TEST(MatReader, ScipyV5UncompressedRoundTrip) {
  const auto path = python_fixture(
      "v5.mat", std::string(kDistinctX) +
                    "import scipy.io\n"
                    "scipy.io.savemat(out, {'X': X, 'Y': np.array([[3.0], [1.0], [3.0]])},"
                    " do_compression=False)");
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(file_bytes(path).rfind("MATLAB 5.0 MAT-file", 0), 0u);
  const Dataset data = read_dataset(path);
  expect_distinct_x(data);
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 0, 1}));
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"Y"}));
}

// --no-target (new data to transform): X alone, without a Y in the file or
// with one (not read); --y-var beside it is refused.
TEST(MatReader, NoTargetReadsXAlone) {
  const auto path = python_fixture("x_alone.mat", std::string(kDistinctX) +
                                                      "import scipy.io\n"
                                                      "scipy.io.savemat(out, {'X': X})");
  ASSERT_FALSE(HasFailure());
  const auto hint = data_error(path);
  EXPECT_NE(hint.find("no variable 'Y'"), std::string::npos) << hint;
  EXPECT_NE(hint.find("is read with --no-target"), std::string::npos) << hint;
  ReadOptions options;
  options.no_target = true;
  const Dataset data = read_dataset(path, options);
  expect_distinct_x(data);
  EXPECT_EQ(data.target_kind, TargetKind::None);
  EXPECT_TRUE(data.target_names.empty());
  options.y_var = "labels";
  const auto both = test::error_of<OptionError>([&] { read_dataset(path, options); });
  EXPECT_NE(both.find("--y-var and --no-target exclude each other"), std::string::npos) << both;
}

TEST(MatReader, ScipyV5CompressedIntegersRowVectorAndOtherNames) {
  // int16 features, a 1 x n target (savemat writes 1-D arrays as rows) and
  // variables chosen by name.
  const auto path =
      python_fixture("v5z.mat", std::string(kDistinctX) +
                                    "import scipy.io\n"
                                    "scipy.io.savemat(out, {'feat': (X - 0.25).astype(np.int16),"
                                    " 'lab': np.array([0.5, 1.5, 2.5])}, do_compression=True)");
  ASSERT_FALSE(HasFailure());
  ReadOptions options;
  options.x_var = "feat";
  options.y_var = "lab";
  const Dataset data = read_mat(path, options);
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 4);
  EXPECT_EQ(data.features(1, 2), 12.0f);
  EXPECT_EQ(data.features(2, 3), 23.0f);
  ASSERT_EQ(data.target_kind, TargetKind::Real);
  ASSERT_EQ(data.targets.rows(), 3);
  ASSERT_EQ(data.targets.cols(), 1);
  EXPECT_EQ(data.targets(2, 0), 2.5);
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"lab"}));
}

TEST(MatReader, LogicalSparseAndMultiOutput) {
  const auto path = python_fixture(
      "kinds.mat",
      "import scipy.io, scipy.sparse\n"
      "S = scipy.sparse.csc_matrix(np.array([[0, 2.5, 0], [1.0, 0, 0], [0, 0, -3.0], [0, 0, 0]]))\n"
      "B = np.array([[True, False], [False, True], [True, True], [False, False]])\n"
      "Y = np.array([[1.5, -1.0], [2.5, -2.0], [3.5, -3.0], [4.5, -4.0]])\n"
      "scipy.io.savemat(out, {'S': S, 'B': B, 'Y': Y})");
  ASSERT_FALSE(HasFailure());
  ReadOptions options;
  options.x_var = "S";
  const Dataset sparse = read_mat(path, options);
  ASSERT_EQ(sparse.rows(), 4);
  ASSERT_EQ(sparse.cols(), 3);
  EXPECT_EQ(sparse.features(0, 1), 2.5f);
  EXPECT_EQ(sparse.features(1, 0), 1.0f);
  EXPECT_EQ(sparse.features(2, 2), -3.0f);
  EXPECT_EQ(sparse.features.cwiseAbs().sum(), 6.5f);
  ASSERT_EQ(sparse.target_kind, TargetKind::Real);
  ASSERT_EQ(sparse.targets.cols(), 2);
  EXPECT_EQ(sparse.targets(3, 0), 4.5);
  EXPECT_EQ(sparse.targets(3, 1), -4.0);
  EXPECT_EQ(sparse.target_names, (std::vector<std::string>{"Y_0", "Y_1"}));

  options.x_var = "B";
  const Dataset logical = read_mat(path, options);
  ASSERT_EQ(logical.cols(), 2);
  EXPECT_EQ(logical.features(0, 0), 1.0f);
  EXPECT_EQ(logical.features(0, 1), 0.0f);
  EXPECT_EQ(logical.features(1, 1), 1.0f);
  EXPECT_EQ(logical.features.sum(), 4.0f);
}

// The distinct 3 x 4 X and Y = (2, 1, 2) as uint8, in a v7.3 file written by
// matio: HDF5 behind a 512-byte MATLAB header. "" when matio cannot.
std::string matio_v73_fixture() {
  const std::string path = test::temp_dir() + "/matio73.mat";
  mat_t* mat = Mat_CreateVer(path.c_str(), nullptr, MAT_FT_MAT73);
  if (mat == nullptr) return {};
  double x[12];  // column-major
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) x[i + 3 * j] = 10.0 * i + j + 0.25;
  }
  std::uint8_t y[3] = {2, 1, 2};
  size_t x_dims[2] = {3, 4};
  size_t y_dims[2] = {3, 1};
  matvar_t* xv = Mat_VarCreate("X", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, x_dims, x, 0);
  matvar_t* yv = Mat_VarCreate("Y", MAT_C_UINT8, MAT_T_UINT8, 2, y_dims, y, 0);
  const bool written = Mat_VarWrite(mat, xv, MAT_COMPRESSION_ZLIB) == 0 &&
                       Mat_VarWrite(mat, yv, MAT_COMPRESSION_ZLIB) == 0;
  Mat_VarFree(xv);
  Mat_VarFree(yv);
  Mat_Close(mat);
  return written ? path : std::string();
}

TEST(MatReader, MatioV73RoundTrip) {
  const std::string path = matio_v73_fixture();
  ASSERT_FALSE(path.empty()) << "this matio cannot write v7.3 files";
  EXPECT_EQ(file_bytes(path).rfind("MATLAB 7.3 MAT-file", 0), 0u);
  EXPECT_EQ(detect_format(path), Format::Mat);
  const Dataset data = read_dataset(path);
  expect_distinct_x(data);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{1, 0, 1}));
}

TEST(MatReader, H5pyMatlabStyleV73) {
  const auto path = matlab_v73_fixture(
      "h5py73.mat",
      "    matlab_class(f.create_dataset('X', data=X.astype(np.float32).T), 'single')\n"
      "    matlab_class(f.create_dataset('Y', data=np.array([[7, 8, 7]], dtype=np.int32)), "
      "'int32')\n",
      kDistinctX);
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(detect_format(path), Format::Mat);
  const Dataset data = read_dataset(path);
  expect_distinct_x(data);
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"7", "8"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0}));
}

// A v7.3 variable kept in another file (an HDF5 external storage list) is
// refused before matio opens it, as the HDF5 reader refuses it.
TEST(MatReader, AV73VariableKeptInAnotherFileIsRefused) {
  const auto path = matlab_v73_fixture(
      "external73.mat",
      "    values = out + '.values'\n"
      "    np.arange(12, dtype='<f8').tofile(values)\n"
      "    matlab_class(f.create_dataset('X', shape=(4, 3), dtype='<f8', "
      "external=[(values, 0, 96)]), 'double')\n"
      "    matlab_class(f.create_dataset('Y', data=np.array([[0, 1, 0]], dtype=np.uint8)), "
      "'uint8')\n");
  ASSERT_FALSE(HasFailure());
  const std::string message = data_error(path);
  EXPECT_NE(message.find(path + ": dataset '/X' keeps its values in other files"),
            std::string::npos)
      << message;
}

// matio reads a v7.3 variable in one H5Dread, for which libhdf5 prepares
// about 4 KB per chunk: this 0.6 MB file's X (4 x 262144 in 262,144 chunks
// of 2 x 2, three of them written) took about 1 GB that way. Dense
// variables are read in pieces of at most 4096 chunks instead.
TEST(MatReader, AV73VariableOfManySmallChunksIsReadInBoundedMemory) {
  const auto path = matlab_v73_fixture(
      "many_chunks73.mat",
      "    x = f.create_dataset('X', shape=(262144, 4), dtype='f8', chunks=(2, 2), "
      "compression='gzip')\n"
      "    x[:4, 0] = [1, 2, 3, 4]\n"
      "    x[262143, 3] = 7\n"
      "    matlab_class(x, 'double')\n"
      "    matlab_class(f.create_dataset('Y', data=np.array([[0, 1, 0, 1]], dtype=np.uint8)), "
      "'uint8')\n"
      // More bytes than chunks: a grid the reader takes.
      "    f['pad'] = np.random.default_rng(1).integers(0, 255, 300000, dtype=np.uint8)\n");
  ASSERT_FALSE(HasFailure());
  const test::ChildPeak read = test::run_in_child_with_peak_memory([&] {
    const Dataset data = read_dataset(path);
    return data.rows() == 4 && data.cols() == 262144 && data.features(0, 1) == 2.0f &&
           data.features(0, 4) == 0.0f && data.features(3, 262143) == 7.0f &&
           data.features(2, 1000) == 0.0f && data.labels == std::vector<std::int32_t>{0, 1, 0, 1};
  });
  EXPECT_TRUE(read.ok) << "the values read back wrong";
  EXPECT_LT(read.growth_kb, 300L * 1024 + test::kSanitizerPeakAllowanceKb);
}

TEST(MatReader, MissingVariableListsTheVariables) {
  const auto path = python_fixture("noX.mat",
                                   "import scipy.io\n"
                                   "scipy.io.savemat(out, {'a': np.zeros((10, 3)), 'b': 'hello',"
                                   " 'c': np.zeros((2, 2), dtype=np.int8)})");
  ASSERT_FALSE(HasFailure());
  testing::internal::CaptureStderr();
  const std::string message = data_error(path);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // matio's own log stays quiet
  EXPECT_NE(message.find(path + ": no variable 'X'; the file holds: a (double 10x3), b (char 1x5), "
                                "c (int8 2x2)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--x-var"), std::string::npos) << message;
}

TEST(MatReader, MissingTargetIsAnError) {
  const auto path = python_fixture(
      "noY.mat", std::string(kDistinctX) + "import scipy.io\nscipy.io.savemat(out, {'X': X})");
  ASSERT_FALSE(HasFailure());
  const std::string message = data_error(path);
  EXPECT_NE(message.find("no variable 'Y'; the file holds: X (double 3x4)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--y-var"), std::string::npos) << message;
}

TEST(MatReader, NonNumericFeaturesNameTheVariableAndClass) {
  const auto path = python_fixture("kinds_bad.mat",
                                   "import scipy.io\n"
                                   "cell = np.empty((1, 2), dtype=object)\n"
                                   "cell[0, 0] = 'a'\n"
                                   "cell[0, 1] = np.ones(3)\n"
                                   "scipy.io.savemat(out, {'S': {'f': 1.0}, 'C': cell, 'T': 'text',"
                                   " 'Z': np.ones((2, 3)) + 1j, 'D': np.zeros((2, 3, 4)),"
                                   " 'Y': np.ones(2)})");
  ASSERT_FALSE(HasFailure());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"S", "variable 'S' is S (struct 1x1), not a numeric matrix"},
      {"C", "variable 'C' is C (cell 1x2), not a numeric matrix"},
      {"T", "variable 'T' is T (char 1x4), not a numeric matrix"},
      {"Z", "variable 'Z' is Z (complex double 2x3): complex values are not supported"},
      {"D", "variable 'D' is D (double 2x3x4): expected a 2-D matrix"},
  };
  for (const auto& [name, expected] : cases) {
    ReadOptions options;
    options.x_var = name;
    const std::string message = data_error(path, options);
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
}

TEST(MatReader, TargetLengthMustMatchRows) {
  const auto path = python_fixture(
      "ylen.mat",
      std::string(kDistinctX) +
          "import scipy.io\n"
          "scipy.io.savemat(out, {'X': X, 'Y': np.ones((5, 1)), 'E': np.zeros((0, 1))})");
  ASSERT_FALSE(HasFailure());
  const std::string message = data_error(path);
  EXPECT_NE(message.find("variable 'Y' holds 5 target values (5x1) but variable 'X' has 3 rows"),
            std::string::npos)
      << message;
  ReadOptions options;
  options.y_var = "E";
  const std::string empty = data_error(path, options);
  EXPECT_NE(empty.find("variable 'E' is empty (0x1)"), std::string::npos) << empty;
}

TEST(MatReader, NotAMatFile) {
  std::mt19937 rng(7);
  std::string noise(4096, '\0');
  for (auto& byte : noise) byte = static_cast<char>(rng());
  const auto path = test::write_temp_file("noise.mat", noise);
  testing::internal::CaptureStderr();
  const std::string message = data_error(path);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(message.find("noise.mat: not a MATLAB .mat file"), std::string::npos) << message;

  // A genuine header followed by garbage.
  const auto fake =
      test::write_temp_file("fake.mat", std::string("MATLAB 5.0 MAT-file").append(124 - 19, ' ') +
                                            std::string("\x00\x01IM", 4) + noise);
  testing::internal::CaptureStderr();
  EXPECT_NE(data_error(fake).find("fake.mat: "), std::string::npos);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// A fuzzed v7.3 file whose attribute message (MATLAB_class) claimed a
// dataspace of 65518 bytes in 48: libhdf5 read past a freed block, and
// crashed, when matio opened the attribute while listing the variables.
// That happens in the HDF5 reader program now: the file is refused naming
// it (libhdf5's garbage class name, or its crash under ASan).
TEST(MatReader, AV73AttributeLongerThanItsMessageIsRefused) {
  test::expect_refused_naming_the_file(test::write_temp_file(
      "attribute.mat",
      file_bytes(test::fixture(
          "../fuzz/regressions/mat/crash-1379b9cd0ea6f3aa797a3f0737c4d5c6cfc1ed65"))));
}

// Every truncation of small v5 files (plain and compressed) and of a v7.3
// file gives a DataError naming the file, and nothing on stderr.
TEST(MatReader, TruncatedFilesAreDataErrors) {
  const auto plain =
      python_fixture("whole.mat", std::string(kDistinctX) +
                                      "import scipy.io\n"
                                      "scipy.io.savemat(out, {'X': X, 'Y': np.arange(3.0)},"
                                      " do_compression=False)");
  const auto packed =
      python_fixture("wholez.mat", std::string(kDistinctX) +
                                       "import scipy.io\n"
                                       "scipy.io.savemat(out, {'X': X, 'Y': np.arange(3.0)},"
                                       " do_compression=True)");
  const auto hdf5_based = matio_v73_fixture();
  ASSERT_FALSE(HasFailure());
  ASSERT_FALSE(hdf5_based.empty());
  for (const auto& source : {plain, packed, hdf5_based}) {
    const std::string bytes = file_bytes(source);
    ASSERT_NO_THROW(read_mat(source, {}));
    for (std::size_t size = 1; size < bytes.size(); size += 7) {
      const auto path = test::write_temp_file("cut.mat", bytes.substr(0, size));
      testing::internal::CaptureStderr();
      try {
        read_mat(path, {});
        ADD_FAILURE() << "no error for " << source << " cut to " << size << " bytes";
      } catch (const DataError& error) {
        EXPECT_EQ(std::string(error.what()).rfind(path + ": ", 0), 0u) << error.what();
      }
      EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "cut to " << size;
    }
  }
}

}  // namespace
}  // namespace topkfs
