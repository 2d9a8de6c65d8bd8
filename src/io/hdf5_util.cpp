#include "hdf5_util.hpp"

#include <fmt/format.h>

#include <algorithm>

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

namespace {

// Plain integers and IEEE-style floats (of any width, so float16 passes)
// that fill their bytes. Anything else in a numeric class is a corrupt type
// description.
bool is_plain_number(hid_t type) {
  const auto size = H5Tget_size(type);
  const auto precision = H5Tget_precision(type);
  if (size == 0 || size > 16 || precision != 8 * size || H5Tget_offset(type) != 0) return false;
  if (H5Tget_class(type) == H5T_INTEGER) return true;
  std::size_t sign = 0, exponent = 0, exponent_bits = 0, mantissa = 0, mantissa_bits = 0;
  if (H5Tget_fields(type, &sign, &exponent, &exponent_bits, &mantissa, &mantissa_bits) < 0) {
    return false;
  }
  return mantissa == 0 && exponent == mantissa_bits && sign == precision - 1 &&
         mantissa_bits + exponent_bits + 1 == precision;
}

class StorageCheck {
 public:
  StorageCheck(hid_t dataset, const std::string& path, const std::string& name)
      : dataset_(dataset), path_(path), name_(name) {}

  void run() const {
    const Handle plist(H5Dget_create_plist(dataset_), H5Pclose);
    const Handle type = type_handle(H5Dget_type(dataset_));
    const Handle space = space_handle(H5Dget_space(dataset_));
    if (!plist || !type || !space) corrupt("its description cannot be read");
    const auto type_class = H5Tget_class(type.get());
    if ((type_class == H5T_INTEGER || type_class == H5T_FLOAT) && !is_plain_number(type.get())) {
      corrupt("malformed number type");
    }
    const auto dims = dataset_dims(dataset_);
    const std::uint64_t bytes =
        checked_element_count(dims, path_, fmt::format("dataset '{}'", name_)) *
        H5Tget_size(type.get());
    switch (H5Pget_layout(plist.get())) {
      case H5D_CONTIGUOUS: {
        const std::uint64_t stored = H5Dget_storage_size(dataset_);
        if (stored != 0 && stored != bytes) corrupt("stored size differs from its shape");
        break;
      }
      case H5D_COMPACT:
        // The values live in the object header; a header claiming fewer
        // bytes than the shape needs makes libhdf5 copy from nowhere.
        if (H5Dget_storage_size(dataset_) != bytes) corrupt("stored size differs from its shape");
        break;
      case H5D_CHUNKED: check_chunks(plist.get(), space.get(), H5Tget_size(type.get())); break;
      default: break;
    }
  }

 private:
  [[noreturn]] void corrupt(const char* what) const {
    throw DataError(
        fmt::format("{}: dataset '{}' is corrupt ({}): the file is damaged", path_, name_, what));
  }

  void check_chunks(hid_t plist, hid_t space, std::uint64_t type_size) const {
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank <= 0) return;
    std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
    std::vector<hsize_t> max_dims(chunk.size());
    if (H5Pget_chunk(plist, rank, chunk.data()) != rank ||
        H5Sget_simple_extent_dims(space, nullptr, max_dims.data()) < 0) {
      corrupt("chunk shape cannot be read");
    }
    for (std::size_t d = 0; d < chunk.size(); ++d) {
      if (chunk[d] == 0 || (max_dims[d] != H5S_UNLIMITED && chunk[d] > max_dims[d])) {
        corrupt("chunk shape exceeds the dataset shape");
      }
    }
    const std::uint64_t chunk_bytes =
        checked_element_count({chunk.begin(), chunk.end()}, path_,
                              fmt::format("the chunks of dataset '{}'", name_)) *
        type_size;
    check_chunk_grid(space, chunk);
    const int filters = H5Pget_nfilters(plist);
    hsize_t chunks = 0;
    if (filters < 0 || filters > 16 || H5Dget_num_chunks(dataset_, space, &chunks) < 0) {
      corrupt("chunk index cannot be read");
    }
    if (filters == 0 && H5Dget_storage_size(dataset_) != chunks * chunk_bytes) {
      corrupt("stored size differs from its chunks");
    }
    // A chunk whose filters were all skipped (an optional filter that
    // failed) is stored raw and must be exactly one chunk long. Looking a
    // chunk up by number walks the chunk index, so only modest counts are
    // checked one by one.
    constexpr hsize_t max_checked_chunks = 2048;
    if (chunks > max_checked_chunks) return;
    const unsigned all_filters = (1u << filters) - 1;
    std::vector<hsize_t> offset(chunk.size());
    for (hsize_t c = 0; c < chunks; ++c) {
      unsigned mask = 0;
      haddr_t address = 0;
      hsize_t size = 0;
      if (H5Dget_chunk_info(dataset_, space, c, offset.data(), &mask, &address, &size) < 0 ||
          (mask & ~all_filters) != 0 ||
          ((mask & all_filters) == all_filters && size != chunk_bytes)) {
        corrupt("chunk size or filter mask inconsistent");
      }
    }
  }

  // libhdf5 spends microseconds and kilobytes on every chunk a read spans,
  // written or not (hdf5_chunked_reads.hpp). A written chunk takes at least
  // a byte of the file, so a grid of more chunks than the file has bytes is
  // mostly fill values, which a small file can make cost minutes and
  // gigabytes to read (a fuzzed 4.6 KB file: 393,216 chunks). Refused above
  // kMinChunkGrid chunks; a fully written dataset is never refused.
  void check_chunk_grid(hid_t space, const std::vector<hsize_t>& chunk) const {
    std::vector<hsize_t> extent(chunk.size());
    H5Sget_simple_extent_dims(space, extent.data(), nullptr);
    const std::vector<std::uint64_t> dims(extent.begin(), extent.end());
    const std::vector<std::uint64_t> chunk_dims(chunk.begin(), chunk.end());
    const std::uint64_t grid = chunk_grid_size(dims, chunk_dims);
    hsize_t file_bytes = 0;
    const Handle file(H5Iget_file_id(dataset_), H5Fclose);
    if (!file || H5Fget_filesize(file.get(), &file_bytes) < 0) corrupt("file size unknown");
    if (grid <= std::max<std::uint64_t>(kMinChunkGrid, file_bytes)) return;
    throw DataError(fmt::format(
        "{}: dataset '{}' ({}) is stored in {} chunks of {}, more chunks than the file has "
        "bytes ({}): almost all of it is unwritten fill value, which libhdf5 reads at a cost "
        "per chunk. Rewrite the dataset with larger chunks (e.g. h5repack -l {}:CHUNK={}x... "
        "IN OUT)",
        path_, name_, shape_text(dims), grid, shape_text(chunk_dims), file_bytes, name_,
        std::min<std::uint64_t>(dims.empty() ? 1 : dims[0], 1024)));
  }

  hid_t dataset_;
  const std::string& path_;
  const std::string& name_;
};

}  // namespace

std::vector<std::uint64_t> dataset_dims(hid_t dataset) {
  const Handle space = space_handle(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank <= 0) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) return {};
  return {dims.begin(), dims.end()};
}

void check_storage(hid_t dataset, const std::string& path, const std::string& name) {
  StorageCheck(dataset, path, name).run();
}

void silence_errors() {
  // Cheap and idempotent; called at each read rather than once, because in a
  // thread-safe HDF5 build the setting is per thread.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace topkfs::hdf5
