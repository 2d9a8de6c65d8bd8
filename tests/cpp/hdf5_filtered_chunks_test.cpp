// Chunks of filtered HDF5 datasets that do not decode to exactly one
// chunk's bytes are refused naming the file (by the row blocks' decoding or
// libhdf5's, in the HDF5 reader program, where libhdf5's reads past a short
// chunk's buffer cannot reach the reading process), and sound files of every
// filter libhdf5 has built in read.
#include <gtest/gtest.h>

#include <string>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

using test::fixture;
using test::python_fixture;

// X[i, j] = 10 i + j + 0.25 (6 x 12), as the Python fixtures write it.
constexpr const char* kValues =
    "import h5py, zlib\n"
    "X = 10.0 * np.arange(6)[:, None] + np.arange(12)[None, :] + 0.25\n";

ReadOptions features(const std::string& x) {
  ReadOptions options;
  options.x_path = x;
  options.y_path = "/Y";
  return options;
}

void expect_values(const Dataset& data, bool first_chunk_only = false) {
  ASSERT_EQ(data.rows(), 6);
  ASSERT_EQ(data.cols(), 12);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 12; ++j) {
      const bool written = !first_chunk_only || (i < 3 && j < 2);
      EXPECT_EQ(data.features(i, j), written ? 10.0 * i + j + 0.25 : -1.0) << i << ", " << j;
    }
  }
}

// Written by h5py: X in each of libhdf5's built-in filters, in chunks of
// 3 x 2, and `partial`, gzip-chunked with only its first chunk written (the
// rest is its fill value, -1).
std::string every_filter_fixture() {
  return python_fixture(
      "every_filter.h5",
      std::string(kValues) +
          "with h5py.File(out, 'w') as f:\n"
          "    f['Y'] = np.arange(6) % 2\n"
          "    f.create_dataset('gzip', data=X, chunks=(3, 2), compression='gzip')\n"
          "    f.create_dataset('checked', data=X, chunks=(3, 2), compression='gzip',\n"
          "                     shuffle=True, fletcher32=True)\n"
          "    f.create_dataset('scaled', data=X, chunks=(3, 2), scaleoffset=2,\n"
          "                     compression='gzip')\n"
          "    space = h5py.h5s.create_simple((6, 12))\n"
          "    for name, number in (('nbit', h5py.h5z.FILTER_NBIT),\n"
          "                         ('szip', h5py.h5z.FILTER_SZIP)):\n"
          "        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)\n"
          "        dcpl.set_chunk((3, 2))\n"
          "        if name == 'szip':\n"
          "            dcpl.set_szip(h5py.h5z.SZIP_NN_OPTION_MASK, 2)\n"
          "        else:\n"
          "            dcpl.set_filter(number)\n"
          "        h5py.h5d.create(f.id, name.encode(), h5py.h5t.IEEE_F64LE, space, dcpl).write(\n"
          "            h5py.h5s.ALL, h5py.h5s.ALL, X)\n"
          "    d = f.create_dataset('partial', shape=(6, 12), chunks=(3, 2), compression='gzip',\n"
          "                         fillvalue=-1.0)\n"
          "    d[:3, :2] = X[:3, :2]\n");
}

TEST(Hdf5FilteredChunks, SoundChunksOfEveryBuiltInFilterRead) {
  const std::string path = every_filter_fixture();
  ASSERT_FALSE(HasFailure());
  for (const char* name : {"/gzip", "/checked", "/scaled", "/nbit", "/szip"}) {
    SCOPED_TRACE(name);
    expect_values(read_dataset(path, features(name)));
  }
  expect_values(read_dataset(path, features("/partial")), true);
}

// Written by h5py: X gzip-chunked in chunks of 3 x 2 (48 bytes), with its
// first chunk replaced by `stored` (Python bytes, built from `first`, the
// chunk's own 48 bytes) under the filter mask `mask`.
std::string replaced_chunk_fixture(const std::string& name, const std::string& stored,
                                   int mask = 0) {
  return python_fixture(
      name, std::string(kValues) +
                "with h5py.File(out, 'w') as f:\n"
                "    f['Y'] = np.arange(6) % 2\n"
                "    d = f.create_dataset('X', data=X, chunks=(3, 2), compression='gzip')\n"
                "    first = X[:3, :2].tobytes()\n"
                "    d.id.write_direct_chunk((0, 0), " +
                stored + ", filter_mask=" + std::to_string(mask) + ")\n");
}

// A gzip stream that inflates to fewer bytes than a chunk made libhdf5 copy
// a whole chunk out of the shorter buffer (valgrind: a read past it, for
// the 32-byte stream stored in 33 bytes); one that inflates to more, or
// does not inflate, is as corrupt.
TEST(Hdf5FilteredChunks, AChunkThatDoesNotDecodeToOneChunkIsRefused) {
  const std::string sound = replaced_chunk_fixture("sound_chunk.h5", "zlib.compress(first)");
  ASSERT_FALSE(HasFailure());
  expect_values(read_dataset(sound, features("/X")));
  // Inflating to 32 bytes, to 96, not inflating, and cut short.
  for (const std::string stored :
       {"zlib.compress(first[:32], 9) + bytes(8)", "zlib.compress(first + first)",
        "b'\\x78\\x9c' + bytes(30)", "zlib.compress(first)[:-6]"}) {
    SCOPED_TRACE(stored);
    const std::string path = replaced_chunk_fixture("replaced_chunk.h5", stored);
    ASSERT_FALSE(HasFailure());
    test::expect_refused_naming_the_file(path, features("/X"));
  }
}

// A chunk whose mask skips gzip is stored raw, and must be a chunk long.
TEST(Hdf5FilteredChunks, AChunkStoredRawMustHoldOneChunk) {
  const std::string sound = replaced_chunk_fixture("raw_chunk.h5", "first", 1);
  ASSERT_FALSE(HasFailure());
  expect_values(read_dataset(sound, features("/X")));
  const std::string path = replaced_chunk_fixture("short_raw_chunk.h5", "first[:40]", 1);
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path, features("/X"));
}

// A short chunk in the middle of a dataset over 1 MB is refused as one at
// its start is.
TEST(Hdf5FilteredChunks, AShortChunkInTheMiddleOfALargeDatasetIsRefused) {
  const std::string path = python_fixture(
      "middle_chunk.h5", std::string(kValues) +
                             "with h5py.File(out, 'w') as f:\n"
                             "    f['Y'] = np.arange(2000) % 2\n"
                             "    d = f.create_dataset('X', data=np.ones((2000, 100)), "
                             "chunks=(100, 100), compression='gzip')\n"
                             "    d.id.write_direct_chunk((1000, 0), zlib.compress(bytes(32)))\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path, features("/X"));
}

// szip records the decoded size in a chunk's first 4 bytes, and libhdf5
// allocates that much for it.
TEST(Hdf5FilteredChunks, AnSzipChunkRecordingAnotherSizeIsRefused) {
  const std::string path = python_fixture(
      "szip_size.h5",
      std::string(kValues) +
          "with h5py.File(out, 'w') as f:\n"
          "    f['Y'] = np.arange(6) % 2\n"
          "    d = f.create_dataset('X', data=X, chunks=(3, 2))\n"
          "    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)\n"
          "    dcpl.set_chunk((3, 2))\n"
          "    dcpl.set_szip(h5py.h5z.SZIP_NN_OPTION_MASK, 2)\n"
          "    space = h5py.h5s.create_simple((6, 12))\n"
          "    d = h5py.h5d.create(f.id, b'S', h5py.h5t.IEEE_F64LE, space, dcpl)\n"
          "    d.write(h5py.h5s.ALL, h5py.h5s.ALL, X)\n"
          "    mask, raw = d.read_direct_chunk((3, 10))\n"
          "    d.write_direct_chunk((3, 10), (40).to_bytes(4, 'little') + raw[4:])\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path, features("/S"));
}

// Found by the long fuzz run (in the old probe process, under ASan): X's chunk
// index lists two chunks at 0 x 0, and each stored chunk inflates to 32 of
// its 48 bytes; libhdf5 read past a 39-byte buffer.
TEST(Hdf5FilteredChunks, AFuzzedFileWhoseChunksInflateShortIsRefused) {
  const std::string path =
      fixture("../fuzz/regressions/hdf5/crash-00582868cb398eb0a4452cb37e63e76f58ca2f50");
  test::expect_refused_naming_the_file(path);
}

}  // namespace
}  // namespace topkfs
