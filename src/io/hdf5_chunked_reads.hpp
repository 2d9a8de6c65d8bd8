#pragma once
// Reading an HDF5 dataset's rows in pieces of a bounded number of chunks.
//
// libhdf5 1.10 prepares a read by building a record, with dataspace copies,
// for every chunk the selection touches, before it reads any: about 4 KB a
// chunk. One read over a dataset of many small chunks then takes gigabytes
// that no header claims (a fuzzed 4.6 KB file: a 6 x 262144 dataset in
// 393,216 chunks of 2 x 2 values, 2.5 GB to read it in one call; by the same
// rate a sound 60000-row file written a row per chunk would take about
// 230 MB). Reading in pieces of at most kChunksPerRead chunks bounds that to
// a few tens of MB.
#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace topkfs::hdf5 {

// At most this many chunks per H5Dread.
constexpr std::uint64_t kChunksPerRead = 4096;
// check_storage allows a dataset this many chunks, or as many as the file
// has bytes if that is more (hdf5_util.cpp, check_chunk_grid).
constexpr std::uint64_t kMinChunkGrid = 4096;

// Reads rows [first, first + count) of `dataset` (with all of its other
// dimensions) into `out`, row-major, as `memory_type`, in pieces of at most
// kChunksPerRead chunks; false when libhdf5 fails (the caller names the
// file). A contiguous or compact dataset is read in one call.
// `after_each_piece`, when given, is called after every piece read (a
// caller that reports its progress does it there).
bool read_rows_in_pieces(hid_t dataset, hid_t memory_type, std::uint64_t first, std::uint64_t count,
                         void* out, const std::function<void()>& after_each_piece = {});

// The rows of one chunk of a chunked dataset; 0 when it is not chunked.
std::uint64_t dataset_chunk_rows(hid_t dataset);

// a * b, or UINT64_MAX when that overflows.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b);

// The number of chunks a chunked dataset of `dims` in chunks of `chunk` is
// split into (rounded up per dimension); saturates at UINT64_MAX.
std::uint64_t chunk_grid_size(const std::vector<std::uint64_t>& dims,
                              const std::vector<std::uint64_t>& chunk);

}  // namespace topkfs::hdf5
