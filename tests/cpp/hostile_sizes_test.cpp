// Headers that claim more than the file holds, or more memory than the
// process has, are refused before anything is allocated, with the sizes in
// the message: one test per format. Files that claim terabytes are sparse
// (a hole costs no disk); claims of a few hundred megabytes are checked in a
// child process under a memory limit, so that the test does not depend on
// the machine's size.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.hpp"
#include "hand_made_files.hpp"
#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/io/atomic_file.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs::test {
namespace {

constexpr std::uint64_t kTerabyte = 1'000'000'000'000;

// ASan and TSan map shadow memory as the program runs, which a data limit
// forbids: the memory-limit halves of these tests run in normal builds only.
#define SKIP_MEMORY_LIMIT_UNDER_SANITIZERS() \
  if (kSanitized) GTEST_SKIP() << "a memory limit and a sanitizer's shadow memory do not mix"
constexpr unsigned long kChildMemory = 512ul << 20;

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

void read_in_child(const std::string& path) { read_dataset(path, {}); }

// The DataError message of reading `path` with at most kChildMemory.
std::string error_with_little_memory(const std::string& path) {
  const ChildResult child = run_in_child(read_in_child, path, kChildMemory);
  EXPECT_TRUE(child.exited) << "the reader died of signal " << child.signal;
  return child.message;
}

TEST(HostileSizes, CsvAndTsvLargerThanMemory) {
  for (const char* name : {"huge.csv", "huge.tsv"}) {
    const std::string message = data_error(sparse_file(name, "a,b,y\n1,2,0\n", kTerabyte));
    EXPECT_HAS(message, name);
    EXPECT_HAS(message, "1000000000000 bytes");
    EXPECT_HAS(message, "memory");
  }
}

TEST(HostileSizes, GzipCsvExpandingPastTheMemoryLimit) {
  SKIP_MEMORY_LIMIT_UNDER_SANITIZERS();
  // 300 MB of one repeated line, a few hundred kilobytes compressed.
  const std::string path =
      python_fixture("expands.csv.gz",
                     "import gzip\nwith gzip.open(out, 'wb', 9) as f:\n"
                     "    f.write(b'a,b,y\\n')\n    block = b'1,2,0\\n' * 1000000\n"
                     "    for _ in range(50): f.write(block)");
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = error_with_little_memory(path);
  EXPECT_HAS(message, "expands.csv.gz");
  EXPECT_HAS(message, "expands to more than");
}

TEST(HostileSizes, LibsvmLargerThanMemoryOrWithAHugeIndex) {
  const std::string message = data_error(sparse_file("huge.svm", "1 1:0.5\n", kTerabyte));
  EXPECT_HAS(message, "huge.svm");
  EXPECT_HAS(message, "memory");
  const std::string index = data_error(write_temp_file("index.svm", "1 1:0.5\n0 4294967296:1\n"));
  EXPECT_HAS(index, "index.svm");
  EXPECT_HAS(index, "4294967296");
}

TEST(HostileSizes, IdxClaimingMoreThanTheFileOrTheMemory) {
  const std::string labels =
      write_temp_file("few-labels-idx1-ubyte", idx_header({10}) + "0123456789");
  ReadOptions options;
  options.labels_path = labels;
  const std::string short_file =
      write_temp_file("claims-images-idx3-ubyte", idx_header({10, 28, 28}) + std::string(100, 0));
  const std::string truncated = data_error(short_file, options);
  EXPECT_HAS(truncated, "claims-images-idx3-ubyte");
  EXPECT_HAS(truncated, "10 x 28 x 28 = 7840 bytes");

  // As many bytes as the header claims, but 4 bytes a pixel do not fit.
  const std::uint32_t rows = 0x7fffffff;
  const std::string images = sparse_file("vast-images-idx3-ubyte", idx_header({rows, 28, 28}),
                                         16 + std::uint64_t{rows} * 784);
  options.labels_path =
      sparse_file("vast-labels-idx1-ubyte", idx_header({rows}), 8 + std::uint64_t{rows});
  const std::string memory = data_error(images, options);
  EXPECT_HAS(memory, "vast-images-idx3-ubyte");
  EXPECT_HAS(memory, "2147483647 x 784 float32");
  EXPECT_HAS(memory, "memory");
}

TEST(HostileSizes, NpyClaimingMoreThanTheFileOrTheMemory) {
  const std::string truncated = data_error(write_temp_file(
      "claims.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }",
                              std::string(16, 0))));
  EXPECT_HAS(truncated, "claims.npy");
  EXPECT_HAS(truncated, "4000000 bytes");
  const std::string header =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (300000, 1000000), }", "");
  // Read into memory (a float32 file is mapped by default, and then costs no
  // memory until a method reads it).
  ReadOptions in_memory;
  in_memory.map = false;
  const std::string memory =
      data_error(sparse_file("vast.npy", header, header.size() + 1'200'000'000'000), in_memory);
  EXPECT_HAS(memory, "vast.npy");
  EXPECT_HAS(memory, "300000 x 1000000 float32");
  EXPECT_HAS(memory, "memory");
  EXPECT_HAS(memory, "topkfs convert");
}

TEST(HostileSizes, NpzMemberClaimingMoreThanTheFileOrTheMemory) {
  ZipMember member{"X.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                      std::string(16, 0))};
  std::string archive = zip_bytes({member});
  // The stored size in the central directory (offset 20 of the entry) now
  // claims 2 GB.
  const std::size_t central = archive.find("PK\x01\x02");
  archive[central + 20 + 3] = 0x7f;
  const std::string past_end = data_error(write_temp_file("claims.npz", archive));
  EXPECT_HAS(past_end, "claims.npz");
  EXPECT_HAS(past_end, "past the end of the file");

  // A stored member of 600 MB, a hole in a sparse file.
  const std::uint64_t size = 600u << 20;
  const std::string header =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (150, 1048576), }", "");
  std::string small = zip_bytes({{"X.npy", header}});
  const std::string path = temp_dir() + "/vast.npz";
  {
    // Local header and the member's first bytes, a hole, then the central
    // directory and the end record with their sizes and offsets moved.
    std::string local = small.substr(0, small.find("PK\x01\x02"));
    std::string tail = small.substr(local.size());
    const std::uint64_t stored = header.size() + size;
    for (std::string* part : {&local, &tail}) {
      const std::size_t at = part == &local ? 18 : 20;
      for (int i = 0; i < 4; ++i) {
        (*part)[at + i] = static_cast<char>((stored >> (8 * i)) & 0xff);
        (*part)[at + 4 + i] = static_cast<char>((stored >> (8 * i)) & 0xff);
      }
    }
    const std::uint64_t directory = local.size() + size;
    const std::size_t end = tail.find("PK\x05\x06");
    for (int i = 0; i < 4; ++i)
      tail[end + 16 + i] = static_cast<char>((directory >> (8 * i)) & 0xff);
    sparse_file("vast.npz", local, directory);
    std::ofstream(path, std::ios::binary | std::ios::app) << tail;
  }
  SKIP_MEMORY_LIMIT_UNDER_SANITIZERS();
  const std::string memory = error_with_little_memory(path);
  EXPECT_HAS(memory, "vast.npz");
  EXPECT_HAS(memory, "member X.npy");
  EXPECT_HAS(memory, "memory");
}

TEST(HostileSizes, MatClaimingMoreThanTheFileOrTheMemory) {
  std::string cut =
      mat_v5_bytes({{"X", 4, 2, {1, 2, 3, 4, 5, 6, 7, 8}}, {"Y", 4, 1, {0, 1, 0, 1}}});
  cut.resize(cut.size() - 20);
  const std::string truncated = data_error(write_temp_file("cut.mat", cut));
  EXPECT_HAS(truncated, "cut.mat");
  EXPECT_HAS(truncated, "claims");

  // X claims 12000 x 12000 doubles (1.15 GB), all present in a sparse file.
  const std::uint32_t side = 12000;
  std::string head = mat_v5_bytes({{"Y", 1, 1, {1}}, {"X", side, side, {}}});
  const std::uint64_t bytes = std::uint64_t{side} * side * 8;
  // The last element's lengths: its miMATRIX tag and its miDOUBLE tag.
  const std::size_t matrix_tag = head.rfind(std::string("\x0e\0\0\0", 4));
  const std::uint64_t body = head.size() - matrix_tag - 8 + bytes;
  for (int i = 0; i < 4; ++i) {
    head[matrix_tag + 4 + i] = static_cast<char>((body >> (8 * i)) & 0xff);
    head[head.size() - 4 + i] = static_cast<char>((bytes >> (8 * i)) & 0xff);
  }
  SKIP_MEMORY_LIMIT_UNDER_SANITIZERS();
  const std::string memory =
      error_with_little_memory(sparse_file("vast.mat", head, head.size() + bytes));
  EXPECT_HAS(memory, "vast.mat");
  EXPECT_HAS(memory, "variable 'X'");
  EXPECT_HAS(memory, "memory");
}

TEST(HostileSizes, Hdf5ClaimingMoreThanTheFileOrTheMemory) {
  // Datasets created without data: libhdf5 allocates nothing until written.
  const std::string claims =
      python_fixture("claims.h5",
                     "import h5py\nwith h5py.File(out, 'w') as f:\n"
                     "    f.create_dataset('X', shape=(100000, 100000), dtype='f4')\n"
                     "    f['Y'] = np.zeros(100000)");
  ASSERT_FALSE(HasFatalFailure());
  const std::string past_file = data_error(claims);
  EXPECT_HAS(past_file, "claims.h5");
  EXPECT_HAS(past_file, "100000 x 100000 float32");

  const std::string vast =
      python_fixture("vast.h5",
                     "import h5py\nwith h5py.File(out, 'w') as f:\n"
                     "    f.create_dataset('X', shape=(20000, 10000), dtype='f4')\n"
                     "    f['Y'] = np.zeros(20000)\n    f['padding'] = np.random.rand(200000)");
  ASSERT_FALSE(HasFatalFailure());
  SKIP_MEMORY_LIMIT_UNDER_SANITIZERS();
  const std::string memory = error_with_little_memory(vast);
  EXPECT_HAS(memory, "vast.h5");
  EXPECT_HAS(memory, "20000 x 10000 float32");
  EXPECT_HAS(memory, "memory");
}

// ---- what fuzzing found ----

TEST(HostileSizes, LibsvmIndexPastTheMemoryLimitOfTheEnvironment) {
  // One row, one index of 88888881: 3.9 GB of matrix and column names.
  const std::string path = write_temp_file("far-index.svm", "1 88888881:2.5\n");
  ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "1G");
  const std::string message = data_error(path);
  EXPECT_HAS(message, "far-index.svm");
  EXPECT_HAS(message, "1 x 88888881 float32");
  EXPECT_HAS(message, "TOPKFS_MEMORY_LIMIT allows 1.1 GB");
}

TEST(HostileSizes, AMemoryLimitThatIsNotASizeIsAnOptionError) {
  const std::string path = write_temp_file("small.svm", "1 1:2.5\n0 2:1\n");
  for (const char* value : {"lots", "-1G", "0", "2T", "99999999999999999999"}) {
    ScopedEnvironment limit("TOPKFS_MEMORY_LIMIT", value);
    const std::string message = error_of<OptionError>([&] { resource_limits_from_environment(); });
    EXPECT_HAS(message, fmt::format("TOPKFS_MEMORY_LIMIT='{}'", value));
  }
}

TEST(HostileSizes, TheLibraryTakesItsLimitsFromItsCallerNotTheEnvironment) {
  // 2 x 2 float32 and two names: 96 bytes as the memory check counts them.
  const std::string path = write_temp_file("tiny.svm", "1 1:2.5\n0 2:1\n");
  {
    ScopedEnvironment limit("TOPKFS_MEMORY_LIMIT", "50");
    EXPECT_EQ(read_dataset(path, {}).rows(), 2);         // the library reads no variable
    const CommandResult info = run_cli("info " + path);  // the command does
    EXPECT_EQ(info.exit_code, 1);
    EXPECT_HAS(info.err, "TOPKFS_MEMORY_LIMIT allows");
  }
  {
    ScopedLimitsFromEnvironment limit("TOPKFS_MEMORY_LIMIT", "50");
    EXPECT_HAS(data_error(path), "TOPKFS_MEMORY_LIMIT allows 0.0 GB");
  }
  ResourceLimits set;
  set.memory_bytes = 50;
  const ResourceLimits before = resource_limits();
  set_resource_limits(set);
  const std::string message = data_error(path);
  set_resource_limits(before);
  EXPECT_HAS(message, "the memory limit allows 0.0 GB");
  EXPECT_EQ(read_dataset(path, {}).rows(), 2);
}

TEST(HostileSizes, MatVariablesThatMatioWouldReadPastTheirEnd) {
  // matio reads 8 bytes of flags whatever the tag says and would take the
  // next bytes for the dimensions' tag.
  std::string bytes =
      mat_v5_bytes({{"X", 4, 2, {1, 2, 3, 4, 5, 6, 7, 8}}, {"Y", 4, 1, {0, 1, 0, 1}}});
  bytes[128 + 8 + 4] = 16;  // the first variable's array flags tag
  const std::string flags = data_error(write_temp_file("long-flags.mat", bytes));
  EXPECT_HAS(flags, "long-flags.mat");
  EXPECT_HAS(flags, "the variable at byte 128");
  EXPECT_HAS(flags, "array flags (at byte 0 of the variable) are 16 bytes");

  // A variable that ends after its flags and dimensions: matio would read
  // its name's tag from whatever follows.
  std::string cut = mat_v5_bytes({{"X", 1, 1, {1}}});
  cut.resize(128 + 8 + 32);
  cut[128 + 4] = 32;  // the miMATRIX length: flags and dimensions only
  const std::string ends = data_error(write_temp_file("ends-early.mat", cut));
  EXPECT_HAS(ends, "ends-early.mat");
  EXPECT_HAS(ends, "it ends after 2 of the 4 parts (array flags, dimensions, name, values)");
}

// Python for .mat v5 files written element by element: tag(type, bytes) pads
// to 8 bytes, var(body) wraps a miMATRIX, head is the 128-byte header.
constexpr const char* kMatElementWriter =
    "import struct\n"
    "def tag(t, data):\n"
    "    return struct.pack('<II', t, len(data)) + data + bytes(-len(data) % 8)\n"
    "def var(body):\n"
    "    return struct.pack('<II', 14, len(body)) + body\n"
    "def matrix(cls, rows, cols, name, rest=b''):\n"
    "    return var(tag(6, struct.pack('<II', cls, 0)) + tag(5, struct.pack('<ii', rows, cols))\n"
    "               + struct.pack('<HH', 1, len(name)) + name.ljust(4, b'\\0') + rest)\n"
    "head = b'MATLAB 5.0 MAT-file'.ljust(116) + bytes(8) + b'\\x00\\x01IM'\n";

// A sparse X (2 x 1, `count` row indices) and a Y, written by hand: the
// fixture sets the row indices' type and the values' claimed length.
std::string sparse_mat_fixture(const std::string& name, int index_type, long count,
                               std::uint64_t values_claim) {
  return python_fixture(
      name,
      fmt::format(
          "{prelude}"
          "x = (tag(6, struct.pack('<II', 5, {count})) + tag(5, struct.pack('<ii', 2, 1))\n"
          "     + struct.pack('<HH', 1, 1) + b'X\\0\\0\\0'\n"
          "     + tag({type}, struct.pack('<{count}i', *([0] * {count})))\n"
          "     + tag(5, struct.pack('<ii', 0, 1))\n"
          "     + struct.pack('<II', 9, {claim}) + struct.pack('<d', 1.0))\n"
          "y = (tag(6, struct.pack('<II', 6, 0)) + tag(5, struct.pack('<ii', 2, 1))\n"
          "     + struct.pack('<HH', 1, 1) + b'Y\\0\\0\\0' + tag(9, struct.pack('<dd', 0, 1)))\n"
          "open(out, 'wb').write(head + var(x) + var(y))",
          fmt::arg("prelude", kMatElementWriter), fmt::arg("count", count),
          fmt::arg("type", index_type), fmt::arg("claim", values_claim)));
}

TEST(HostileSizes, MatSparseIndicesOfAnotherWidthThanMatioReads) {
  // matio reads length / 4 indices of the tag's type: 16-bit indices would
  // leave it reading the next tag from inside them (fuzzing found types 251
  // and 11264, and 4.3 GB allocated for the values).
  const std::string good = sparse_mat_fixture("sparse.mat", 5, 2, 8);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(read_dataset(good, {}).features.rows(), 2);
  const std::string narrow = sparse_mat_fixture("sparse-int16.mat", 3, 2, 8);
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = data_error(narrow);
  EXPECT_HAS(message, "sparse-int16.mat");
  EXPECT_HAS(message, "its sparse row indices (at byte 40 of the variable) are 8 bytes of type 3");
}

TEST(HostileSizes, MatFunctionHandleClaimingMoreElementsThanItHolds) {
  // matio allocates a pointer per element of a function handle from its
  // dimensions alone (fuzzing found 1 x 1493237766: 11.9 GB), before a cell
  // X and Y that it must read past.
  const std::string path = python_fixture(
      "function-handle.mat", std::string(kMatElementWriter) +
                                 "f = matrix(16, 1, 1493237766, b'F')\n"
                                 "x = matrix(6, 2, 1, b'X', tag(9, struct.pack('<dd', 1, 2)))\n"
                                 "y = matrix(6, 2, 1, b'Y', tag(9, struct.pack('<dd', 0, 1)))\n"
                                 "open(out, 'wb').write(head + f + x + y)");
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = data_error(path);
  EXPECT_HAS(message, "function-handle.mat");
  EXPECT_HAS(message, "its dimensions claim 1493237766 elements");
}

TEST(HostileSizes, MatCellElementThatIsNotAMatrix) {
  // matio reads every element of a cell as a matrix element and loses what
  // it allocated for the cell when one is not (fuzzing found an element of
  // type 12: LeakSanitizer reported 194 bytes).
  const std::string path =
      python_fixture("cell-element.mat",
                     std::string(kMatElementWriter) +
                         "x = matrix(1, 2, 1, b'X', tag(14, b'') + tag(12, struct.pack('<q', 7)))\n"
                         "open(out, 'wb').write(head + x)");
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = data_error(path);
  EXPECT_HAS(message, "cell-element.mat");
  EXPECT_HAS(message, "its element 2 (at byte 48 of the variable) has type 12");
}

TEST(HostileSizes, MatTagsFarIntoAVariableAreCheckedToo) {
  // 1050 row indices put the values' tag past the first 4 KB of the
  // variable; it claims 4 GB, which matio would allocate.
  const std::string path = sparse_mat_fixture("far-values.mat", 5, 1050, 0xFFFFFFF8);
  ASSERT_FALSE(HasFatalFailure());
  const std::string message = data_error(path);
  EXPECT_HAS(message, "far-values.mat");
  EXPECT_HAS(message, "the tag of its data (at byte 4264 of the variable) claims 4294967288 bytes");
}

TEST(HostileSizes, Hdf5SubgroupHeapPastTheEndOfTheFile) {
  // libhdf5 reads the local heap of every group it lists or looks a name up
  // in (fuzzing found a crash in H5Lvisit on a subgroup's).
  const std::string path =
      python_fixture("subgroup-heap.h5",
                     "import h5py\nwith h5py.File(out, 'w', libver='earliest') as f:\n"
                     "    for part in ('train', 'test'):\n"
                     "        f[part + '/data'] = np.zeros((4, 2))\n"
                     "        f[part + '/target'] = np.arange(4) % 2");
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(read_dataset(path, {}).features.rows(), 8);
  std::string bytes = read_file_bytes(path);
  const std::size_t root_heap = bytes.find("HEAP");
  const std::size_t heap = bytes.find("HEAP", root_heap + 4);
  ASSERT_NE(heap, std::string::npos);
  bytes[heap + 8 + 7] = 0x13;  // the heap's data segment size
  // libhdf5 then reads past the end of the file in the HDF5 reader program.
  test::expect_refused_naming_the_file(write_temp_file("subgroup-heap-cut.h5", bytes));
}

TEST(HostileSizes, Hdf5RootGroupHeapPastTheEndOfTheFile) {
  const std::string path =
      python_fixture("root-heap.h5",
                     "import h5py\nwith h5py.File(out, 'w', libver='earliest') as f:\n"
                     "    f['X'] = np.zeros((4, 2))\n    f['Y'] = np.arange(4) % 2");
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(read_dataset(path, {}).features.rows(), 4);
  std::string bytes = read_file_bytes(path);
  // The heap's data segment size (8 bytes after "HEAP", version, reserved).
  const std::size_t heap = bytes.find("HEAP");
  ASSERT_NE(heap, std::string::npos);
  bytes[heap + 8 + 7] = 0x13;
  test::expect_refused_naming_the_file(write_temp_file("root-heap-cut.h5", bytes));
}

// ---- atomic outputs under a signal ----

void write_then_die(const std::string& path) {
  remove_temporaries_on_termination();
  write_file_atomically(path, [](std::ostream& out) {
    out << "half a result";
    out.flush();
    std::raise(SIGTERM);
  });
}

TEST(AtomicOutput, ASignalDuringTheWriteLeavesNoTemporary) {
  const std::string folder = temp_dir() + "/signal";
  std::filesystem::create_directories(folder);
  const ChildResult child = run_in_child(write_then_die, folder + "/result.json");
  EXPECT_EQ(child.signal, SIGTERM);
  EXPECT_TRUE(std::filesystem::is_empty(folder)) << "left behind in " << folder;
}

}  // namespace
}  // namespace topkfs::test
