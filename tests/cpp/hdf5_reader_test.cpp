// The HDF5 reader: the shared USPS file (its train/test layout and explicit
// dataset paths), round trips of files written by h5py, and the errors.
#include <fmt/format.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <numeric>
#include <random>
#include <thread>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/io/readers.hpp"

namespace topkfs {
namespace {

using test::contains;
using test::data_error;
using test::fixture;

using test::python_fixture;
using test::shared_data;

ReadOptions paths(const std::string& x, const std::string& y) {
  ReadOptions options;
  options.x_path = x;
  options.y_path = y;
  return options;
}

// Written by h5py: X[i, j] = 10 i + j + 0.25 (distinct, so a transposed read
// shows) as float64, int16 and a 3-D copy; targets as int32 vectors, a 1 x n
// row, an n x 2 matrix and a vector of the wrong length; a string dataset;
// X as float32 gzip-chunked and in the compact layout (held in the header).
std::string kinds_fixture() {
  return python_fixture("kinds.h5",
                        "import h5py\n"
                        "X = 10.0 * np.arange(3)[:, None] + np.arange(4)[None, :] + 0.25\n"
                        "with h5py.File(out, 'w') as f:\n"
                        "    f['X'] = X\n"
                        "    f['Y'] = np.array([5, 6, 5], dtype=np.int32)\n"
                        "    g = f.create_group('more')\n"
                        "    g['ints'] = (X - 0.25).astype(np.int16)\n"
                        "    g['row'] = np.array([[1.5, 2.5, 3.5]])\n"
                        "    g['pairs'] = np.array([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])\n"
                        "    g['short'] = np.array([1, 2], dtype=np.uint8)\n"
                        "    g['cube'] = np.zeros((3, 2, 2), dtype=np.float32)\n"
                        "    g['names'] = np.array([b'a', b'b', b'c'])\n"
                        "    g.create_dataset('packed', data=X.astype(np.float32), "
                        "compression='gzip', chunks=(2, 3))\n"
                        "    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)\n"
                        "    dcpl.set_layout(h5py.h5d.COMPACT)\n"
                        "    small = X.astype(np.float32)\n"
                        "    h5py.h5d.create(g.id, b'compact', h5py.h5t.py_create(small.dtype),\n"
                        "                    h5py.h5s.create_simple(small.shape), dcpl=dcpl)"
                        ".write(h5py.h5s.ALL, h5py.h5s.ALL, small)\n");
}

TEST(Hdf5Reader, UspsTrainTestLayout) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  const Dataset data = read_dataset(shared_data("usps/usps.h5"));
  EXPECT_EQ(data.format, "hdf5");
  ASSERT_EQ(data.rows(), 9298);
  ASSERT_EQ(data.cols(), 256);
  EXPECT_EQ(data.features.minCoeff(), 0.0f);
  EXPECT_EQ(data.features.maxCoeff(), 1.0f);
  ASSERT_TRUE(data.predefined_split.has_value());
  ASSERT_EQ(data.predefined_split->train.size(), 7291u);
  ASSERT_EQ(data.predefined_split->test.size(), 2007u);
  EXPECT_EQ(data.predefined_split->train.front(), 0);
  EXPECT_EQ(data.predefined_split->train.back(), 7290);
  EXPECT_EQ(data.predefined_split->test.front(), 7291);
  EXPECT_EQ(data.predefined_split->test.back(), 9297);
  ASSERT_TRUE(data.image_shape.has_value());
  EXPECT_EQ(data.image_shape->height, 16);
  EXPECT_EQ(data.image_shape->width, 16);
  EXPECT_EQ(data.notes,
            (std::vector<std::string>{"image shape 16x16 assumed from 256 columns (USPS layout)"}));
  ASSERT_EQ(data.target_kind, TargetKind::Classes);
  ASSERT_EQ(data.num_classes(), 10);
  for (int c = 0; c < 10; ++c) EXPECT_EQ(data.class_names[c], std::to_string(c));
  // Train + test counts per digit, as h5py and numpy.bincount give them.
  EXPECT_EQ(class_counts(data),
            (std::vector<std::int64_t>{1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821}));
  // train/target starts 6 5 4 7 3; test/target ends 3 9 4 0 1.
  EXPECT_EQ(std::vector<std::int32_t>(data.labels.begin(), data.labels.begin() + 5),
            (std::vector<std::int32_t>{6, 5, 4, 7, 3}));
  EXPECT_EQ(std::vector<std::int32_t>(data.labels.end() - 5, data.labels.end()),
            (std::vector<std::int32_t>{3, 9, 4, 0, 1}));
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"target"}));
}

TEST(Hdf5Reader, UspsExplicitPaths) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  const Dataset train =
      read_dataset(shared_data("usps/usps.h5"), paths("/train/data", "/train/target"));
  EXPECT_EQ(train.rows(), 7291);
  EXPECT_EQ(train.cols(), 256);
  EXPECT_FALSE(train.predefined_split.has_value());
  EXPECT_FALSE(train.image_shape.has_value());
  EXPECT_EQ(class_counts(train),
            (std::vector<std::int64_t>{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644}));

  // Only the features given: the target beside them is found.
  const Dataset test = read_dataset(shared_data("usps/usps.h5"), paths("test/data", ""));
  EXPECT_EQ(test.rows(), 2007);
  EXPECT_EQ(class_counts(test),
            (std::vector<std::int64_t>{359, 264, 198, 166, 200, 160, 170, 147, 166, 177}));
}

TEST(Hdf5Reader, MissingDatasetListsTheDatasets) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  const std::string path = shared_data("usps/usps.h5");
  const std::string message = data_error(path, paths("/train/datax", "/train/target"));
  EXPECT_TRUE(contains(message, path +
                                    ": no dataset '/train/datax'; the file holds: "
                                    "/test/data (2007x256 float32), /test/target (2007 int32), "
                                    "/train/data (7291x256 float32), /train/target (7291 int32)"))
      << message;
  EXPECT_TRUE(contains(message, "--x-path")) << message;

  // Only the features given, and missing: named before any target is looked for.
  const std::string alone = data_error(path, paths("/nowhere/data", ""));
  EXPECT_TRUE(contains(alone, "no dataset '/nowhere/data'; the file holds")) << alone;

  const std::string group = data_error(path, paths("/train", "/train/target"));
  EXPECT_TRUE(contains(group, "no dataset '/train' (that is a group)")) << group;
}

TEST(Hdf5Reader, RootXYRoundTrip) {
  const auto path = kinds_fixture();
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(detect_format(path), Format::Hdf5);
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.rows(), 3);
  ASSERT_EQ(data.cols(), 4);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(data.features(i, j), 10.0f * i + j + 0.25f);
  }
  EXPECT_EQ(data.class_names, (std::vector<std::string>{"5", "6"}));
  EXPECT_EQ(data.labels, (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(data.target_names, (std::vector<std::string>{"Y"}));
  EXPECT_FALSE(data.predefined_split.has_value());
  EXPECT_FALSE(data.image_shape.has_value());
}

// --no-target (new data to transform): X alone at the root, by --x-path,
// and the USPS layout's train/data and test/data with the split kept; a
// file without Y says how to read it; a target named beside is refused.
TEST(Hdf5Reader, NoTargetReadsTheFeaturesAlone) {
  const auto path =
      python_fixture("unlabelled.h5",
                     "import h5py\n"
                     "X = 10.0 * np.arange(3)[:, None] + np.arange(4)[None, :] + 0.25\n"
                     "with h5py.File(out, 'w') as f:\n"
                     "    f['X'] = X\n"
                     "    f['train/data'] = X[:2]\n"
                     "    f['test/data'] = X[2:]\n"
                     "    f['other/features'] = X[:, :2]\n");
  ASSERT_FALSE(HasFailure());
  const auto hint = test::error_of<DataError>([&] { read_dataset(path); });
  EXPECT_NE(hint.find("is read with --no-target"), std::string::npos) << hint;
  ReadOptions options;
  options.no_target = true;
  const Dataset usps = read_dataset(path, options);
  ASSERT_EQ(usps.rows(), 3);
  ASSERT_EQ(usps.cols(), 4);
  EXPECT_EQ(usps.target_kind, TargetKind::None);
  EXPECT_EQ(usps.features(2, 3), 23.25f);
  EXPECT_EQ(usps.predefined_split->train, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(usps.predefined_split->test, (std::vector<std::int64_t>{2}));
  const Dataset by_rows = read_dataset_by_rows(path, options);
  EXPECT_EQ(by_rows.target_kind, TargetKind::None);
  EXPECT_EQ(by_rows.rows(), 3);

  options.x_path = "other/features";
  const Dataset chosen = read_dataset(path, options);
  ASSERT_EQ(chosen.cols(), 2);
  EXPECT_EQ(chosen.features(1, 1), 11.25f);
  EXPECT_FALSE(chosen.predefined_split.has_value());

  const auto root = python_fixture("unlabelled_root.h5",
                                   "import h5py\n"
                                   "with h5py.File(out, 'w') as f:\n"
                                   "    f['data'] = np.arange(6.0).reshape(3, 2)\n");
  ASSERT_FALSE(HasFailure());
  options.x_path.clear();
  const Dataset alone = read_dataset(root, options);
  ASSERT_EQ(alone.rows(), 3);
  EXPECT_EQ(alone.features(2, 1), 5.0f);

  options.y_path = "/Y";
  const auto both = test::error_of<OptionError>([&] { read_dataset(root, options); });
  EXPECT_NE(both.find("--y-path and --no-target exclude each other"), std::string::npos) << both;
}

TEST(Hdf5Reader, IntegerCompressedRowAndMatrixTargets) {
  const auto path = kinds_fixture();
  ASSERT_FALSE(HasFailure());
  const Dataset ints = read_hdf5(path, paths("/more/ints", "/more/row"));
  EXPECT_EQ(ints.features(2, 1), 21.0f);
  EXPECT_EQ(ints.features(1, 3), 13.0f);
  ASSERT_EQ(ints.target_kind, TargetKind::Real);
  ASSERT_EQ(ints.targets.rows(), 3);
  ASSERT_EQ(ints.targets.cols(), 1);
  EXPECT_EQ(ints.targets(2, 0), 3.5);

  const Dataset packed = read_hdf5(path, paths("/more/packed", "/more/pairs"));
  EXPECT_EQ(packed.features(2, 3), 23.25f);
  EXPECT_EQ(packed.features(0, 1), 1.25f);
  ASSERT_EQ(packed.targets.cols(), 2);
  EXPECT_EQ(packed.targets(1, 0), 2.0);
  EXPECT_EQ(packed.targets(1, 1), -2.0);
  EXPECT_EQ(packed.target_names, (std::vector<std::string>{"pairs_0", "pairs_1"}));

  const Dataset compact = read_hdf5(path, paths("/more/compact", "/Y"));
  EXPECT_EQ(compact.features(2, 3), 23.25f);
  EXPECT_EQ(compact.features(1, 0), 10.25f);
}

TEST(Hdf5Reader, ShapeAndTypeErrors) {
  const auto path = kinds_fixture();
  ASSERT_FALSE(HasFailure());
  const std::string cube = data_error(path, paths("/more/cube", "/Y"));
  EXPECT_TRUE(contains(cube, "dataset /more/cube (3x2x2 float32) has rank 3; expected 2")) << cube;

  const std::string rows = data_error(path, paths("/X", "/more/short"));
  EXPECT_TRUE(contains(rows, "'/X' has 3 rows (samples) but '/more/short' has 2 target rows"))
      << rows;

  const std::string text = data_error(path, paths("/X", "/more/names"));
  EXPECT_TRUE(contains(text, "dataset /more/names (3 string) is not numeric")) << text;
}

TEST(Hdf5Reader, UnrecognisedLayoutNamesTheOptions) {
  const auto path = python_fixture("odd.h5",
                                   "import h5py\n"
                                   "with h5py.File(out, 'w') as f:\n"
                                   "    f['features'] = np.ones((4, 2))\n");
  ASSERT_FALSE(HasFailure());
  const std::string message = data_error(path);
  EXPECT_TRUE(contains(message,
                       "the file holds: /features (4x2 float64); choose with --x-path and "
                       "--y-path"))
      << message;
  const std::string sibling = data_error(path, paths("/features", ""));
  EXPECT_TRUE(contains(sibling,
                       "no dataset /target or /Y or /y or /labels or /label beside "
                       "'/features'"))
      << sibling;
}

TEST(Hdf5Reader, NotAnHdf5File) {
  std::mt19937 rng(11);
  std::string noise(2048, '\0');
  for (auto& byte : noise) byte = static_cast<char>(rng());
  const auto path = test::write_temp_file("noise.h5", noise);
  testing::internal::CaptureStderr();
  const std::string message = data_error(path);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(contains(message, "noise.h5: not an HDF5 file")) << message;
}

// A fuzzed file on which libhdf5 1.10 divides by zero while opening a
// dataset (its chunk shape): the HDF5 reader program dies, the reader
// refuses the file naming the crash, and the next file reads as usual.
TEST(Hdf5Reader, AFileThatCrashesLibhdf5IsRefusedAndReadingGoesOn) {
  const std::string path =
      fixture("../fuzz/regressions/hdf5/crash-07135747e8cb62b9402f6eeff1f7e0b81b334d4a");
  const std::string message = data_error(path);
  // Under ASan the sanitizer's handler takes the signal and ends the
  // program its own way (abort_on_error: SIGABRT).
  EXPECT_TRUE(contains(message, path + ": libhdf5 crashed reading the file (")) << message;
  if (!test::kSanitized) {
    EXPECT_TRUE(contains(message, "(Floating point exception): the file is corrupt")) << message;
  }
  const Dataset after = read_dataset(kinds_fixture());
  EXPECT_EQ(after.rows(), 3);
}

// A process that handles a signal without SA_RESTART (libFuzzer's SIGALRM,
// an application's timer) interrupts the reader's waits for the HDF5 reader
// program. An interrupted wait is resumed: a sound file still reads, and
// no reader program is left unreaped (a zombie) or waited for forever.
void count_signal(int) {}

TEST(Hdf5Reader, SignalsDuringTheReadDoNotFailAFileOrLeaveAZombie) {
  const std::string path = kinds_fixture();
  ASSERT_FALSE(HasFailure());
  struct sigaction action {};
  action.sa_handler = count_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // interrupted system calls fail with EINTR
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGALRM, &action, &before), 0);
  const itimerval every_50us{{0, 50}, {0, 50}};
  ASSERT_EQ(::setitimer(ITIMER_REAL, &every_50us, nullptr), 0);
  int failures = 0;
  std::string first_failure;
  for (int round = 0; round < 200; ++round) {
    try {
      EXPECT_EQ(read_dataset(path).rows(), 3);
    } catch (const Error& error) {
      if (failures++ == 0) first_failure = error.what();
    }
  }
  const itimerval off{};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  ::sigaction(SIGALRM, &before, nullptr);
  EXPECT_EQ(failures, 0) << first_failure;
  // A child that ended and was not waited for is a zombie: WNOHANG reaps
  // it and returns its pid; with none, 0 (a child still runs) or -1.
  int status = 0;
  EXPECT_LE(::waitpid(-1, &status, WNOHANG), 0);
}

// A 4 x 262144 dataset in 2 x 2 chunks, 262,144 of them, of which the file
// holds 3 (the rest are the fill value, 0), as a fuzzed 4.6 KB file had (its
// 6 x 262144 took 2.5 GB). libhdf5 prepares about 4 KB per chunk a read
// spans, so one read of it all takes about 1 GB; the reader reads in pieces
// of at most 4096 chunks.
std::string many_chunks_fixture() {
  return python_fixture("many_chunks.h5",
                        "import h5py\n"
                        "with h5py.File(out, 'w') as f:\n"
                        "    x = f.create_dataset('X', shape=(4, 262144), dtype='f8', "
                        "chunks=(2, 2), compression='gzip')\n"
                        "    x[0, :4] = [1, 2, 3, 4]\n"
                        "    x[3, 262143] = 7\n"
                        "    f['Y'] = np.arange(4) % 2\n"
                        // More bytes than chunks: a grid the reader takes.
                        "    f['pad'] = np.random.default_rng(1).integers(0, 255, 300000, "
                        "dtype=np.uint8)\n");
}

TEST(Hdf5Reader, ADatasetOfManySmallChunksIsReadInBoundedMemory) {
  const std::string path = many_chunks_fixture();
  ASSERT_FALSE(HasFatalFailure());
  const test::ChildPeak read = test::run_in_child_with_peak_memory([&] {
    const Dataset data = read_dataset(path);
    return data.rows() == 4 && data.cols() == 262144 && data.features(0, 1) == 2.0f &&
           data.features(0, 4) == 0.0f && data.features(3, 262143) == 7.0f &&
           data.features(2, 1000) == 0.0f;
  });
  EXPECT_TRUE(read.ok) << "the values read back wrong";
  // The matrix itself is 4 MB as float; read in one piece, about 1 GB (1.7
  // GB at the peak). Under ASan 404 MB was seen (test_support.hpp).
  EXPECT_LT(read.growth_kb, 300L * 1024 + test::kSanitizerPeakAllowanceKb);

  // Row by row (the streaming source) it reads the same values.
  const Dataset streamed = read_dataset_by_rows(path);
  const std::vector<std::int64_t> rows = {3, 0};
  std::vector<float> got(2 * 262144);
  streamed.feature_rows().copy_rows(rows.data(), rows.size(), got.data());
  EXPECT_EQ(got[262143], 7.0f);
  EXPECT_EQ(got[262144 + 1], 2.0f);
  EXPECT_EQ(std::accumulate(got.begin(), got.end(), 0.0), 17.0);  // 7 + 1 + 2 + 3 + 4
}

// The one child process the thread `task` (a thread of this process)
// started, or -1.
pid_t child_of(pid_t task) {
  std::ifstream children(fmt::format("/proc/self/task/{}/children", task));
  std::vector<pid_t> pids;
  for (pid_t pid = 0; children >> pid;) pids.push_back(pid);
  return pids.size() == 1 ? pids[0] : -1;
}

// 16,000 scalar datasets: the reader program describes each, and reads no
// values, so its walk makes no progress report for about 0.5 s. The reading
// process looks at the program every 0.1 s, and a walk that ends between two looks is
// accepted whatever its limit: with 4000 (under 0.1 s on an idle core) the
// time-limit test below failed about one run in three.
std::string many_scalars_fixture() {
  return python_fixture("many_scalars.h5",
                        "import h5py\n"
                        "with h5py.File(out, 'w') as f:\n"
                        "    for i in range(16000):\n"
                        "        f[f's{i}'] = float(i)\n");
}

// The reader program's time limit is on the processor time it uses since
// its last progress (started, the file opened, a block of rows written),
// not on the time the reading process waits: on a loaded machine a sound
// file's read may wait for a core much longer than it computes. Under a
// limit of 1 s, a program stopped for 2 s as soon as it starts (as a busy
// machine deschedules it) reads the file; under 0.02 s, one that spends
// longer on metadata alone is stopped and the file refused.
TEST(Hdf5Reader, TheReaderProgramsTimeLimitIsOnProcessorTimeSinceItsLastProgress) {
  const std::string small = kinds_fixture();
  const std::string scalars = many_scalars_fixture();
  ASSERT_FALSE(HasFatalFailure());
  test::ScopedLimitsFromEnvironment limit("TOPKFS_HDF5_READER_CPU_SECONDS", "1");
  const auto reading = static_cast<pid_t>(::syscall(SYS_gettid));
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    pid_t program = -1;
    while ((program = child_of(reading)) < 0 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (program > 0 && ::kill(program, SIGSTOP) == 0) {
      stopped = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2000));
      ::kill(program, SIGCONT);
    }
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    EXPECT_EQ(read_dataset(small).rows(), 3);
  } catch (const Error& error) {
    ADD_FAILURE() << error.what();
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  stopper.join();
  EXPECT_TRUE(stopped);
  EXPECT_GE(waited, std::chrono::milliseconds(2000));  // it waited for the stopped program

  {
    test::ScopedLimitsFromEnvironment short_limit("TOPKFS_HDF5_READER_CPU_SECONDS", "0.02");
    const std::string message = test::error_of<DataError>([&] { read_dataset(scalars); });
    EXPECT_NE(message.find(scalars + ": libhdf5 did not finish reading the file "
                                     "within 0.02 s of processor time"),
              std::string::npos)
        << message;
  }
  // The next file, in a program of its own, under the 1 s limit again.
  EXPECT_EQ(read_dataset(small).rows(), 3);
}

// X (6 x 4) in one gzip chunk of 1,000,000 x 4 doubles: libhdf5 decodes the
// whole chunk, 32 MB, to read 24 values (a sound file: the dataset may grow
// to the chunk's size).
std::string one_large_chunk_fixture() {
  return python_fixture("one_large_chunk.h5",
                        "import h5py\n"
                        "with h5py.File(out, 'w') as f:\n"
                        "    f.create_dataset('X', data=np.arange(24.0).reshape(6, 4), "
                        "maxshape=(None, 4), chunks=(1000000, 4), compression='gzip')\n"
                        "    f['Y'] = np.arange(6) % 2\n");
}

// The reader program's memory is bounded: beyond what it held when it
// started, a base (TOPKFS_HDF5_READER_MEMORY_MB, 1 GB by default) and what
// it announces before reading a dataset's values, at the peak. Under a base
// of 8 MB (64 MB under ASan, whose allocator takes more before the
// announcement; the fuzzers' base too) the walk of 16,000 datasets'
// metadata is refused (still at 128 MB under ASan); the file whose one
// chunk decodes to 32 MB reads (the program peaks between 32 and 64 MB
// beyond the base when it announces nothing).
TEST(Hdf5Reader, TheReaderProgramsMemoryIsBoundedByWhatItsReadsAnnounce) {
  const std::string scalars = many_scalars_fixture();
  const std::string large = one_large_chunk_fixture();
  ASSERT_FALSE(HasFatalFailure());
  const char* megabytes = test::kSanitized ? "64" : "8";
  test::ScopedEnvironment base("TOPKFS_HDF5_READER_MEMORY_MB", megabytes);
  const test::CommandResult refused = test::run_cli("info " + scalars);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find(scalars + ": libhdf5 took more than " + megabytes +
                             " MB of memory reading the file"),
            std::string::npos)
      << refused.err;
  const test::CommandResult read = test::run_cli("info --json " + large);
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("\"rows\": 6"), std::string::npos) << read.out;
}

// X[i, j] = 10000 i + j in `rows` x `cols`, chunked `chunk`, and a chunked
// target Y = i % 3 (a chunk per value).
std::string pieces_fixture(const std::string& name, int rows, int cols, const std::string& chunk) {
  return python_fixture(name, fmt::format("import h5py\n"
                                          "with h5py.File(out, 'w') as f:\n"
                                          "    i, j = np.meshgrid(np.arange({0}), np.arange({1}), "
                                          "indexing='ij')\n"
                                          "    f.create_dataset('X', data=(i * 10000 + j).astype("
                                          "'f8'), chunks={2})\n"
                                          "    f.create_dataset('Y', data=np.arange({0}) % 3, "
                                          "chunks=(1,))\n",
                                          rows, cols, chunk));
}

// Every value of X and Y in its place, in memory and by runs of rows.
void expect_pieces_read_exactly(const std::string& path, const std::vector<std::int64_t>& run) {
  const Dataset whole = read_dataset(path);
  for (Eigen::Index i = 0; i < whole.rows(); ++i) {
    for (Eigen::Index j = 0; j < whole.cols(); ++j) {
      ASSERT_EQ(whole.features(i, j), static_cast<float>(i * 10000 + j)) << i << ", " << j;
    }
  }
  for (std::size_t i = 0; i < whole.labels.size(); ++i) {
    ASSERT_EQ(whole.labels[i], static_cast<std::int32_t>(i % 3)) << "row " << i;
  }
  const Dataset streamed = read_dataset_by_rows(path);
  const auto cols = static_cast<std::size_t>(whole.cols());
  std::vector<float> got(run.size() * cols);
  streamed.feature_rows().copy_rows(run.data(), run.size(), got.data());
  for (std::size_t r = 0; r < run.size(); ++r) {
    for (std::size_t j = 0; j < cols; ++j) {
      ASSERT_EQ(got[r * cols + j],
                static_cast<float>(run[r] * 10000 + static_cast<std::int64_t>(j)))
          << "row " << run[r] << ", column " << j;
    }
  }
}

// The pieces cover a dataset exactly: a chunk row of more than 4096 chunks
// is split across its columns too, a run of rows need not start on a chunk
// boundary, and datasets of more than 4096 chunks down the rows (X a row per
// chunk, Y a value per chunk) are read in pieces of rows.
TEST(Hdf5Reader, PiecesOfChunksReadEveryValueOnce) {
  const std::string wide = pieces_fixture("wide.h5", 8, 8200, "(3, 2)");  // 3 x 4100 chunks
  ASSERT_FALSE(HasFatalFailure());
  expect_pieces_read_exactly(wide, {1, 2, 3, 4, 7});
  const std::string tall = pieces_fixture("tall.h5", 9000, 3, "(1, 3)");  // 9000 chunks
  ASSERT_FALSE(HasFatalFailure());
  std::vector<std::int64_t> run(5000);
  std::iota(run.begin(), run.end(), 4000);  // across the piece boundary at row 4096
  expect_pieces_read_exactly(tall, run);
}

// A grid of more chunks than the file has bytes is mostly fill values
// (minutes and gigabytes to read, for nothing): refused before any read,
// naming the dataset, its chunks and the file's size.
TEST(Hdf5Reader, AGridOfTooManyChunksIsRefused) {
  const std::string path = python_fixture(
      "tiny_chunks.h5",
      "import h5py\n"
      "with h5py.File(out, 'w') as f:\n"
      "    f.create_dataset('X', shape=(8192, 4096), dtype='f4', chunks=(1, 1))\n"
      "    f['Y'] = np.arange(8192) % 2\n"
      // Enough bytes that the claimed values pass the compression-ratio check.
      "    f['pad'] = np.random.default_rng(1).integers(0, 255, 65536, dtype=np.uint8)\n");
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = data_error(path);
  EXPECT_TRUE(contains(message,
                       "dataset '/X' (8192x4096) is stored in 33554432 chunks of 1x1, more "
                       "chunks than the file has bytes ("))
      << message;
  EXPECT_TRUE(contains(message,
                       "Rewrite the dataset with larger chunks (e.g. h5repack -l "
                       "/X:CHUNK=1024x... IN OUT)"))
      << message;
}

// Every truncation of a small HDF5 file gives a DataError naming the file,
// and HDF5 prints nothing.
// A fuzzed dataset whose datatype message (16 bytes) was made an enumerated
// type of 13,361 members: libhdf5 copied their names up to their NULs past
// the end of the object header's buffer (ASan, in the probe process).
// Now libhdf5 decodes it in the HDF5 reader program: refused naming the file.
TEST(Hdf5Reader, AFuzzedDatatypeLongerThanItsMessageIsRefused) {
  test::expect_refused_naming_the_file(
      fixture("../fuzz/regressions/hdf5/crash-0337be60984d097dd36c340192c834d260407695"));
}

// A fuzzed file whose root attribute claimed more values than its message
// held (libhdf5 1.10 copied points x size bytes out of the object header
// whatever the message had left): refused naming the file.
TEST(Hdf5Reader, TheFuzzedAttributeWhoseValuesOutranItsMessageIsRefused) {
  test::expect_refused_naming_the_file(
      fixture("../fuzz/regressions/hdf5/crash-aa3d867e1bb88033867dd0ef78f54b652f229e4d"));
}

// Written by h5py: X and Y beside a dataset `extra` of an enumerated or a
// compound type, or X with an enumerated attribute `extra`.
std::string typed_fixture(const std::string& kind) {
  return python_fixture(
      fmt::format("typed_{}.h5", kind),
      fmt::format("kind = '{}'\n", kind) +
          "import h5py\n"
          "with h5py.File(out, 'w') as f:\n"
          "    f['X'] = np.arange(12, dtype='f4').reshape(6, 2)\n"
          "    f['Y'] = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)\n"
          "    low_high = h5py.enum_dtype({'low': 0, 'high': 1}, basetype='i1')\n"
          "    if kind == 'enum':\n"
          "        f.create_dataset('extra', data=np.array([0, 1], dtype='i1'), dtype=low_high)\n"
          "    elif kind == 'compound':\n"
          "        f.create_dataset('extra', data=np.zeros(2, dtype=[('first', 'i4'), "
          "('second', 'f8')]))\n"
          "    else:\n"
          "        f['X'].attrs['extra'] = np.array([1], dtype=low_high)\n");
}

// Enumerated and compound types, in a dataset or an attribute beside X and
// Y, do not stop the read.
TEST(Hdf5Reader, EnumeratedAndCompoundTypesBesideTheDataRead) {
  for (const std::string kind : {"enum", "compound", "attribute"}) {
    SCOPED_TRACE(kind);
    const Dataset sound = read_dataset(typed_fixture(kind));
    EXPECT_EQ(sound.rows(), 6);
    EXPECT_EQ(sound.features(5, 1), 11.0f);
  }
}

// Written by h5py: X and Y beside a dataset with a fill value (3.5), a
// gzip-compressed one and a compact one. With `kind` "dataspace", X's
// dataspace message is made to claim rank 30 of its 2; "none" leaves the
// file sound. libhdf5 1.10 reads what the field claims.
std::string claiming_fixture(const std::string& kind) {
  return python_fixture(
      "claiming_" + kind + ".h5",
      "kind = '" + kind +
          "'\n"
          "import struct\n"
          "import h5py\n"
          "with h5py.File(out, 'w') as f:\n"
          "    f['X'] = np.arange(12, dtype='f4').reshape(6, 2)\n"
          "    f['Y'] = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)\n"
          "    f.create_dataset('fill', shape=(5, 3), dtype='f8', fillvalue=3.5)\n"
          "    f.create_dataset('gz', data=np.arange(100.0), compression='gzip', chunks=(10,))\n"
          "    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)\n"
          "    dcpl.set_layout(h5py.h5d.COMPACT)\n"
          "    small = np.arange(6, dtype='f4')\n"
          "    h5py.h5d.create(f.id, b'compact', h5py.h5t.py_create(small.dtype),\n"
          "                    h5py.h5s.create_simple((6,)), dcpl).write(h5py.h5s.ALL, "
          "h5py.h5s.ALL, small)\n"
          "raw = bytearray(open(out, 'rb').read())\n"
          "def patch(pattern, offset, value):\n"
          "    at = raw.find(pattern)\n"
          "    assert at >= 0 and raw.find(pattern, at + 1) < 0, kind\n"
          "    raw[at + offset:at + offset + len(value)] = value\n"
          "if kind == 'dataspace':    # X: version 1, rank 2, dims 6 and 2; rank made 30\n"
          "    patch(b'\\x01\\x02\\x01\\x00\\x00\\x00\\x00\\x00' + (6).to_bytes(8, 'little') + "
          "(2).to_bytes(8, 'little'), 1, b'\\x1e')\n"
          "open(out, 'wb').write(raw)\n");
}

// X's dataspace claiming a rank of 30 in a message of rank 2: libhdf5
// reads what it claims in the HDF5 reader program, and the file is refused
// naming it. (The other messages' claims are in datasets the read takes no
// values from; libhdf5's over-reads there stay in the program.)
TEST(Hdf5Reader, AMatrixWhoseDataspaceClaimsMoreThanItHoldsIsRefused) {
  const Dataset sound = read_dataset(claiming_fixture("none"));
  EXPECT_EQ(sound.rows(), 6);
  test::expect_refused_naming_the_file(claiming_fixture("dataspace"));
}

// Written by h5py: X (6 x 4 float32) kept in another file through an
// external storage list, beside Y. With `damaged`, the list's file name runs
// to the end of its local heap without a NUL (the heap's free list emptied
// so that libhdf5 still loads it): libhdf5 read past the heap's block when
// it opened X (found by the long fuzz run, in the probe process).
std::string external_storage_fixture(const std::string& name, bool damaged) {
  return python_fixture(name,
                        std::string("import h5py, os\n"
                                    "values = out + '.values'\n"
                                    "np.arange(24, dtype='<f4').tofile(values)\n"
                                    "with h5py.File(out, 'w') as f:\n"
                                    "    f.create_dataset('X', shape=(6, 4), dtype='<f4', "
                                    "external=[(values, 0, 96)])\n"
                                    "    f['Y'] = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)\n"
                                    "damaged = ") +
                            (damaged ? "True" : "False") +
                            "\n"
                            "if damaged:\n"
                            "    raw = bytearray(open(out, 'rb').read())\n"
                            "    at = raw.find(values.encode() + b'\\0')\n"
                            "    heap = raw.find(b'HEAP')\n"
                            "    while True:\n"
                            "        size = int.from_bytes(raw[heap + 8:heap + 16], 'little')\n"
                            "        data = int.from_bytes(raw[heap + 24:heap + 32], 'little')\n"
                            "        if data <= at < data + size:\n"
                            "            break\n"
                            "        heap = raw.find(b'HEAP', heap + 1)\n"
                            "    raw[heap + 16:heap + 24] = (1).to_bytes(8, 'little')\n"
                            "    raw[at:data + size] = b'a' * (data + size - at)\n"
                            "    open(out, 'wb').write(raw)\n");
}

// A dataset kept in other files is refused, naming it, sound or not: its
// list names files anywhere on the machine, and a damaged one makes libhdf5
// read past its buffer (in the reader program). The next file reads.
TEST(Hdf5Reader, ADatasetKeptInOtherFilesIsRefused) {
  const std::string sound = external_storage_fixture("external.h5", false);
  ASSERT_FALSE(HasFailure());
  const std::string message = data_error(sound);
  EXPECT_TRUE(contains(message, sound + ": dataset '/X' keeps its values in other files (an HDF5 "
                                        "external storage list), which topkfs does not read"))
      << message;
  // libhdf5 reads past the damaged list when it opens X, in the reader
  // program: the same message, or under ASan the program's crash.
  const std::string damaged = external_storage_fixture("external_damaged.h5", true);
  ASSERT_FALSE(HasFailure());
  const std::string refused = data_error(damaged);
  EXPECT_TRUE(contains(
      refused, damaged + (test::kSanitized ? ": libhdf5 crashed reading the file (Aborted)"
                                           : ": dataset '/X' keeps its values in other files")))
      << refused;
  const Dataset after = read_dataset(kinds_fixture());
  EXPECT_EQ(after.rows(), 3);
}

TEST(Hdf5Reader, TruncatedFilesAreDataErrors) {
  const auto source = python_fixture(
      "whole.h5",
      "import h5py\n"
      "with h5py.File(out, 'w') as f:\n"
      "    for part, n in (('train', 5), ('test', 3)):\n"
      "        g = f.create_group(part)\n"
      "        g.create_dataset('data', data=np.arange(n * 6, dtype=np.float32).reshape(n, 6),"
      " compression='gzip', chunks=(2, 3))\n"
      "        g['target'] = np.arange(n, dtype=np.int32) % 2\n");
  ASSERT_FALSE(HasFailure());
  const Dataset whole = read_hdf5(source, {});
  ASSERT_EQ(whole.rows(), 8);
  EXPECT_FALSE(whole.image_shape.has_value());  // 6 columns: not the USPS images
  std::ifstream in(source, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (std::size_t size = 1; size < bytes.size(); size += 37) {
    const auto path = test::write_temp_file("cut.h5", bytes.substr(0, size));
    testing::internal::CaptureStderr();
    try {
      read_hdf5(path, {});
      ADD_FAILURE() << "no error for a copy cut to " << size << " bytes";
    } catch (const DataError& error) {
      EXPECT_EQ(std::string(error.what()).rfind(path + ": ", 0), 0u) << error.what();
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "cut to " << size;
  }
}

}  // namespace
}  // namespace topkfs
