#include "hdf5_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <mutex>

#include "hdf5_chunk_decoding.hpp"
#include "hdf5_chunked_reads.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs::hdf5 {

std::string shape_text(const std::vector<std::uint64_t>& dims) {
  if (dims.empty()) return "scalar";
  return fmt::format("{}", fmt::join(dims, "x"));
}

std::uint64_t checked_element_count(const std::vector<std::uint64_t>& dims, const std::string& path,
                                    const std::string& what) {
  // Every stored element takes at least one byte before compression.
  constexpr std::uint64_t max_compression_ratio = 1100;
  const std::uint64_t limit = (file_size(path) + 1024) * max_compression_ratio;
  std::uint64_t count = 1;
  for (auto dim : dims) {
    if (dim != 0 && count > limit / dim) {
      count = limit + 1;
      break;
    }
    count *= dim;
  }
  if (count > limit) {
    throw DataError(fmt::format(
        "{}: {} claims {} values, more than a file of {} bytes can hold: the file is corrupt", path,
        what, shape_text(dims), file_size(path)));
  }
  return count;
}

std::vector<std::uint64_t> dataset_dims(hid_t dataset) {
  const Handle space = space_handle(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank <= 0) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) return {};
  return {dims.begin(), dims.end()};
}

std::optional<std::vector<hsize_t>> chunk_shape(hid_t plist, int rank) {
  if (rank <= 0) return std::nullopt;
  std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
  if (H5Pget_chunk(plist, rank, chunk.data()) != rank) return std::nullopt;
  return chunk;
}

void check_chunk_grid(hid_t dataset, const std::string& path, const std::string& name) {
  const Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  const Handle space = space_handle(H5Dget_space(dataset));
  if (!plist || !space || H5Pget_layout(plist.get()) != H5D_CHUNKED) return;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const auto chunk = chunk_shape(plist.get(), rank);
  if (!chunk) return;  // the read says what is wrong
  const std::vector<std::uint64_t> dims = dataset_dims(dataset);
  const std::vector<std::uint64_t> chunk_dims(chunk->begin(), chunk->end());
  const std::uint64_t grid = chunk_grid_size(dims, chunk_dims);
  hsize_t file_bytes = 0;
  const Handle file(H5Iget_file_id(dataset), H5Fclose);
  if (!file || H5Fget_filesize(file.get(), &file_bytes) < 0) return;
  if (grid <= std::max<std::uint64_t>(kMinChunkGrid, file_bytes)) return;
  throw DataError(fmt::format(
      "{}: dataset '{}' ({}) is stored in {} chunks of {}, more chunks than the file has "
      "bytes ({}): almost all of it is unwritten fill value, which libhdf5 reads at a cost "
      "per chunk. Rewrite the dataset with larger chunks (e.g. h5repack -l {}:CHUNK={}x... "
      "IN OUT)",
      path, name, shape_text(dims), grid, shape_text(chunk_dims), file_bytes, name,
      std::min<std::uint64_t>(dims.empty() ? 1 : dims[0], 1024)));
}

bool has_external_storage(hid_t dataset) {
  const Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  return plist && H5Pget_external_count(plist.get()) > 0;
}

namespace {

std::mutex quiet_mutex;
int quiet_depth = 0;
H5E_auto2_t saved_handler = nullptr;
void* saved_data = nullptr;

}  // namespace

QuietErrors::QuietErrors() {
  const std::lock_guard<std::mutex> lock(quiet_mutex);
  if (quiet_depth++ > 0) return;
  H5Eget_auto2(H5E_DEFAULT, &saved_handler, &saved_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() {
  const std::lock_guard<std::mutex> lock(quiet_mutex);
  if (--quiet_depth > 0) return;
  H5Eset_auto2(H5E_DEFAULT, saved_handler, saved_data);
}

}  // namespace topkfs::hdf5
