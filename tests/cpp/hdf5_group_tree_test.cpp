// The structures that hold an HDF5 group's links (files with a version 0 or
// 1 superblock, as h5py and MATLAB write), corrupted as fuzzing found them:
// a B-tree node that is its own child or deeper than any tree, a node
// reached twice, a local heap's free list with a loop, link names that are
// paths, soft link targets that do not end. libhdf5 walks them in the HDF5
// reader program (src/io/reader_process.hpp), where it loops, crashes or
// fails; the read is refused naming the file either way, and this process
// goes on. Sound trees of two levels, groups reached through two links and
// soft links read.
#include <gtest/gtest.h>

#include <string>

#include "python_fixture.hpp"
#include "test_support.hpp"
#include "topkfs/io/read_dataset.hpp"

namespace topkfs {
namespace {

using test::python_fixture;

// Opens the file for writing as `f`, with X (6 x 2) and Y in the root group.
constexpr const char* kWriteXY =
    "import h5py\n"
    "with h5py.File(out, 'w') as f:\n"
    "    f['X'] = np.arange(12, dtype='f4').reshape(6, 2)\n"
    "    f['Y'] = np.array([0, 1, 0, 1, 0, 1], dtype=np.int32)\n";

// X (6 x 2) and Y in the root group, whose B-tree is then edited by
// `patch`, Python run with `raw` (the file's bytes) and `tree` (the offset
// of the root group's B-tree node, the file's only one) defined. A node is
// "TREE", its type and level (bytes 4 and 5), its number of children
// (2 bytes), two sibling addresses, then key, child, key, ... (8 bytes each).
std::string root_tree_fixture(const std::string& name, const std::string& patch) {
  return python_fixture(
      name, std::string(kWriteXY) +
                "raw = bytearray(open(out, 'rb').read())\n"
                "tree = raw.find(b'TREE')\n"
                "assert tree > 0 and raw.find(b'TREE', tree + 1) < 0\n"
                "assert raw[tree + 4:tree + 8] == b'\\0\\0\\x01\\0'  # group, level 0, 1 child\n"
                "def child(i):\n"
                "    return tree + 32 + 16 * i\n" +
                patch + "open(out, 'wb').write(raw)\n");
}

// The file `write` makes (X and Y in the root group by default), whose
// local heap is then edited by `patch`, run with `raw`, `heap` (the offset
// of "HEAP", the file's only local heap), `size` and `data` (its data
// segment's size and offset) defined. A local heap is "HEAP", its version
// and 3 reserved bytes, the data segment's size, the offset of its first
// free block (1: none) and the data's address (8 bytes each); a free block
// starts with the next one's offset.
std::string root_heap_fixture(const std::string& name, const std::string& patch,
                              const std::string& write = kWriteXY) {
  return python_fixture(name, write +
                                  "raw = bytearray(open(out, 'rb').read())\n"
                                  "heap = raw.find(b'HEAP')\n"
                                  "assert heap > 0 and raw.find(b'HEAP', heap + 1) < 0\n"
                                  "size = int.from_bytes(raw[heap + 8:heap + 16], 'little')\n"
                                  "data = int.from_bytes(raw[heap + 24:heap + 32], 'little')\n" +
                                  patch + "open(out, 'wb').write(raw)\n");
}

// The fuzzed .mat files' shape (tests/fuzz/regressions/mat/slow-unit-a41dad...):
// a free block whose next is itself. libhdf5 1.10 follows such a list,
// adding a node each time, until the reader program's memory limit.
TEST(Hdf5GroupTree, AFreeListThatComesBackToABlockIsRefused) {
  const std::string path =
      root_heap_fixture("heap_free_loop.h5",
                        "head = int.from_bytes(raw[heap + 16:heap + 24], 'little')\n"
                        "assert head != 1, 'the heap has no free block'\n"
                        "raw[data + head:data + head + 8] = head.to_bytes(8, 'little')\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path);
}

// The fuzzed .mat file's shape (tests/fuzz/regressions/mat/slow-unit-5f92c8...):
// the link to X renamed ".", which libhdf5's H5Lvisit looks up as the root
// group itself and entered without end. "/" is the root too, and an empty
// name no link's.
TEST(Hdf5GroupTree, ALinkWhoseNameIsAPathIsRefused) {
  for (const std::string renamed : {".", "/", ""}) {
    SCOPED_TRACE("renamed '" + renamed + "'");
    const std::string path = root_heap_fixture("heap_link_name.h5",
                                               "x = raw.find(b'X\\0', data)\n"
                                               "assert x > 0\n"
                                               "raw[x:x + 2] = (b'" +
                                                   renamed + "' + b'\\0\\0')[:2]\n");
    ASSERT_FALSE(HasFailure());
    test::expect_refused_naming_the_file(path);
  }
}

// The root group's entry in the superblock caches its B-tree and local
// heap; libhdf5 takes the names from the heap its object header's message
// names. Here that message names a copy of the heap, appended to the file,
// in which X is renamed ".", while the cached heap keeps the sound names.
TEST(Hdf5GroupTree, ANameInTheHeapOfTheHeadersMessageIsRefused) {
  const std::string path = root_heap_fixture(
      "heap_of_header.h5",
      "copy = len(raw)\n"
      "header = bytearray(raw[heap:heap + 32])\n"
      "header[24:32] = (copy + 32).to_bytes(8, 'little')\n"
      "names = bytearray(raw[data:data + size])\n"
      "names[names.find(b'X\\0')] = ord('.')\n"
      "raw += header + names\n"
      "raw[40:48] = len(raw).to_bytes(8, 'little')  # the superblock's end of file\n"
      "root = int.from_bytes(raw[64:72], 'little')  # the root entry's object header\n"
      "at = root + 16\n"
      "while int.from_bytes(raw[at:at + 2], 'little') != 0x11:  # the symbol table message\n"
      "    at += 8 + int.from_bytes(raw[at + 2:at + 4], 'little')\n"
      "assert int.from_bytes(raw[at + 16:at + 24], 'little') == heap\n"
      "raw[at + 16:at + 24] = copy.to_bytes(8, 'little')\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path);
}

// A soft link's entry has no object header, only the offset of its target
// path in the local heap.
TEST(Hdf5GroupTree, ASoftLinkReadsAndOneWhoseTargetDoesNotEndIsRefused) {
  const std::string soft_link = std::string(kWriteXY) + "    f['alias'] = h5py.SoftLink('/X')\n";
  const std::string path = python_fixture("soft_link.h5", soft_link);
  ASSERT_FALSE(HasFailure());
  ReadOptions through_link;
  through_link.x_path = "alias";
  const Dataset data = read_dataset(path, through_link);
  ASSERT_EQ(data.rows(), 6);
  EXPECT_EQ(data.features(5, 1), 11.0);

  // The target "/X" made to run to the heap's end without a NUL.
  const std::string unended =
      root_heap_fixture("soft_link_unended.h5",
                        "target = raw.find(b'/X\\0', data, data + size)\n"
                        "assert target > 0\n"
                        "raw[target:data + size] = b'a' * (data + size - target)\n",
                        soft_link);
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(unended);
}

// The fuzzed .mat file's shape (tests/fuzz/regressions/mat/crash-e081e4...):
// a node whose only child is itself at its own level. libhdf5's H5Gget_info
// recursed on it until the stack ran out.
TEST(Hdf5GroupTree, ANodeThatIsItsOwnChildIsRefused) {
  const std::string path =
      root_tree_fixture("tree_own_child.h5",
                        "raw[tree + 5] = 1\n"
                        "raw[child(0):child(0) + 8] = tree.to_bytes(8, 'little')\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path);
}

TEST(Hdf5GroupTree, ARootDeeperThanAnyWrittenTreeIsRefused) {
  const std::string path = root_tree_fixture("tree_too_deep.h5", "raw[tree + 5] = 200\n");
  ASSERT_FALSE(HasFailure());
  test::expect_refused_naming_the_file(path);
}

// Two children that are the same symbol node: libhdf5 lists its links
// twice (a tree of such nodes n levels deep 2^n times, bounded by the
// reader program's limits); X and Y read as written.
TEST(Hdf5GroupTree, ANodeReachedTwiceReadsAsWritten) {
  const std::string path = root_tree_fixture(
      "tree_twice.h5",
      "raw[tree + 6] = 2\n"
      "raw[child(1):child(1) + 8] = raw[child(0):child(0) + 8]\n"
      "raw[child(1) + 8:child(1) + 16] = raw[child(0) + 8:child(0) + 16]  # the last key\n");
  ASSERT_FALSE(HasFailure());
  const Dataset data = read_dataset(path);
  ASSERT_EQ(data.rows(), 6);
  ASSERT_EQ(data.cols(), 2);
  for (Eigen::Index i = 0; i < 6; ++i) {
    EXPECT_EQ(data.features(i, 0), static_cast<float>(2 * i));
    EXPECT_EQ(data.features(i, 1), static_cast<float>(2 * i + 1));
    EXPECT_EQ(data.labels[static_cast<std::size_t>(i)], static_cast<std::int32_t>(i % 2));
  }
}

// A group of 400 links needs a tree of two levels (a node holds 32 symbol
// nodes of 8 links), and `alias` is a second link to the same group, whose
// tree the walk then meets twice: both are sound.
TEST(Hdf5GroupTree, ATwoLevelTreeAndAGroupLinkedTwiceRead) {
  const std::string path = python_fixture(
      "tree_two_levels.h5",
      std::string(kWriteXY) +
          "    for i in range(400):\n"
          "        f['many/d%03d' % i] = np.float64(i)\n"
          "    f['alias'] = f['many']\n"
          "raw = open(out, 'rb').read()\n"
          "levels = [raw[at + 5] for at in range(len(raw)) if raw.startswith(b'TREE\\0', at)]\n"
          "assert max(levels) == 1, levels\n");
  ASSERT_FALSE(HasFailure());
  const Dataset data = read_dataset(path, {});
  ASSERT_EQ(data.rows(), 6);
  ASSERT_EQ(data.cols(), 2);
  EXPECT_EQ(data.features(5, 1), 11.0);
}

}  // namespace
}  // namespace topkfs
