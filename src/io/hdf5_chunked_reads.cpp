#include "hdf5_chunked_reads.hpp"

#include <algorithm>
#include <limits>

#include "hdf5_util.hpp"

namespace topkfs::hdf5 {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// The dataset's chunk shape, or empty when it is not chunked.
std::vector<std::uint64_t> dataset_chunk_shape(hid_t dataset, std::size_t rank) {
  const Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  if (!plist || H5Pget_layout(plist.get()) != H5D_CHUNKED) return {};
  const auto chunk = chunk_shape(plist.get(), static_cast<int>(rank));
  if (!chunk || std::find(chunk->begin(), chunk->end(), 0) != chunk->end()) {
    return {};  // refused by check_storage before any read
  }
  return {chunk->begin(), chunk->end()};
}

// Reads the block of `size` starting at `start` (dataset coordinates) into
// its place in `out`, which holds rows [first, first + extent[0]) whole.
bool read_block(hid_t dataset, hid_t memory_type, const std::vector<hsize_t>& extent,
                std::uint64_t first, std::vector<hsize_t> start, const std::vector<hsize_t>& size,
                void* out) {
  const int rank = static_cast<int>(extent.size());
  const Handle file_space = space_handle(H5Dget_space(dataset));
  const Handle memory_space = space_handle(H5Screate_simple(rank, extent.data(), nullptr));
  if (!file_space || !memory_space ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, size.data(),
                          nullptr) < 0) {
    return false;
  }
  start[0] -= first;
  return H5Sselect_hyperslab(memory_space.get(), H5S_SELECT_SET, start.data(), nullptr, size.data(),
                             nullptr) >= 0 &&
         H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, out) >= 0;
}

}  // namespace

std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return a * b;
}

std::uint64_t chunk_grid_size(const std::vector<std::uint64_t>& dims,
                              const std::vector<std::uint64_t>& chunk) {
  std::uint64_t chunks = 1;
  for (std::size_t d = 0; d < dims.size() && d < chunk.size(); ++d) {
    chunks = saturating_product(chunks, ceil_div(dims[d], chunk[d]));
  }
  return chunks;
}

std::uint64_t dataset_chunk_rows(hid_t dataset) {
  const std::vector<std::uint64_t> dims = dataset_dims(dataset);
  if (dims.empty()) return 0;
  const std::vector<std::uint64_t> chunk = dataset_chunk_shape(dataset, dims.size());
  return chunk.empty() ? 0 : chunk[0];
}

bool read_rows_in_pieces(hid_t dataset, hid_t memory_type, std::uint64_t first, std::uint64_t count,
                         void* out, const std::function<void()>& after_each_piece) {
  const std::vector<std::uint64_t> dims = dataset_dims(dataset);
  if (dims.empty()) return H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
  if (count == 0) return true;
  std::vector<hsize_t> extent(dims.begin(), dims.end());
  extent[0] = count;
  std::vector<std::uint64_t> chunk = dataset_chunk_shape(dataset, dims.size());
  if (chunk.empty()) chunk.assign(extent.begin(), extent.end());  // one piece

  // Chunks that one chunk's worth of rows spans beyond the first two
  // dimensions, and across the second.
  const std::vector<std::uint64_t> extent_beyond(
      extent.begin() + std::min<std::size_t>(2, extent.size()), extent.end());
  const std::vector<std::uint64_t> chunk_beyond(
      chunk.begin() + std::min<std::size_t>(2, chunk.size()), chunk.end());
  const std::uint64_t beyond = chunk_grid_size(extent_beyond, chunk_beyond);
  const std::uint64_t across = extent.size() >= 2 ? ceil_div(extent[1], chunk[1]) : 1;
  std::uint64_t row_step = chunk[0];
  std::uint64_t column_step = extent.size() >= 2 ? extent[1] : 1;
  if (saturating_product(across, beyond) <= kChunksPerRead) {
    row_step =
        saturating_product(chunk[0], kChunksPerRead / std::max<std::uint64_t>(1, across * beyond));
  } else if (extent.size() >= 2) {
    column_step = saturating_product(chunk[1], std::max<std::uint64_t>(1, kChunksPerRead / beyond));
  }

  std::vector<hsize_t> start(extent.size(), 0);
  std::vector<hsize_t> size = extent;
  for (std::uint64_t row = 0; row < count; row += row_step) {
    start[0] = first + row;
    size[0] = std::min(row_step, count - row);
    const std::uint64_t columns = extent.size() >= 2 ? extent[1] : 1;
    for (std::uint64_t column = 0; column < columns; column += column_step) {
      if (extent.size() >= 2) {
        start[1] = column;
        size[1] = std::min(column_step, columns - column);
      }
      if (!read_block(dataset, memory_type, extent, first, start, size, out)) return false;
      if (after_each_piece) after_each_piece();
    }
  }
  return true;
}

}  // namespace topkfs::hdf5
