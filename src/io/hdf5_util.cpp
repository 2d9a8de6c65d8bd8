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
