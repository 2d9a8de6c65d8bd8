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

  void check_layout() const {
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
        // A size of 0 is a dataset never written (its fill value), or one
        // whose layout gives an address with a size of 0, which libhdf5
        // reads from the address by its shape as it does a sound one.
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

  // Every written chunk of a filtered dataset must decode to exactly one
  // chunk's bytes (hdf5_chunk_decoding.hpp), so each is read raw and decoded
  // here first. A chunk is looked up by its coordinates as a read looks it
  // up (H5Dget_chunk_info_by_coord can find another entry when a corrupt
  // index lists two chunks at one place, as a fuzzed file's did), which
  // costs about what the read's own look-ups cost; check_chunk_grid has
  // bounded their number. Only the chunks holding rows [first, first +
  // count); check_layout has passed.
  void check_decoded_rows(std::uint64_t first, std::uint64_t count,
                          const std::function<void()>& progress) const {
    const Handle plist(H5Dget_create_plist(dataset_), H5Pclose);
    const Handle type = type_handle(H5Dget_type(dataset_));
    const Handle space = space_handle(H5Dget_space(dataset_));
    if (!plist || !type || !space) corrupt("its description cannot be read");
    if (H5Pget_layout(plist.get()) != H5D_CHUNKED || H5Pget_nfilters(plist.get()) <= 0) return;
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank <= 0) return;
    const auto shape = chunk_shape(plist.get(), rank);
    std::vector<hsize_t> extent(static_cast<std::size_t>(rank));
    if (!shape || H5Sget_simple_extent_dims(space.get(), extent.data(), nullptr) < 0) {
      corrupt("chunk shape cannot be read");
    }
    const std::vector<hsize_t>& chunk = *shape;
    // check_layout refuses a side of 0 first; the walk below divides by
    // the first and steps by every one.
    if (std::find(chunk.begin(), chunk.end(), 0) != chunk.end()) {
      corrupt("chunk shape exceeds the dataset shape");
    }
    std::uint64_t chunk_bytes = H5Tget_size(type.get());
    for (const hsize_t side : chunk) chunk_bytes *= side;  // check_layout bounded the product
    std::vector<PipelineFilter> pipeline;
    if (!read_pipeline(plist.get(), &pipeline)) corrupt("filter pipeline cannot be read");
    std::vector<hsize_t> offset(chunk.size(), 0);
    offset[0] = first - first % chunk[0];
    if (count < extent[0] - std::min<hsize_t>(first, extent[0])) {
      extent[0] = first + count;  // the end of the rows to check
    }
    if (offset[0] >= extent[0] || std::find(extent.begin(), extent.end(), 0) != extent.end()) {
      return;
    }
    const std::uint64_t file_size = file_bytes();
    std::uint64_t visited = 0;
    do {
      // libhdf5 1.10 fails this call for a chunk never written (a read
      // takes its fill value); the read's own look-up fails alike on an
      // index it cannot search.
      hsize_t size = 0;
      if (H5Dget_chunk_storage_size(dataset_, offset.data(), &size) < 0) size = 0;
      if (size > file_size) corrupt("chunk index inconsistent");
      if (size > 0) check_decoded_chunk(pipeline, offset, size, chunk_bytes);
      if (progress && ++visited % 256 == 0) progress();
    } while (next_chunk(extent, chunk, &offset));
  }

 private:
  [[noreturn]] void corrupt(const std::string& what) const {
    throw DataError(
        fmt::format("{}: dataset '{}' is corrupt ({}): the file is damaged", path_, name_, what));
  }

  void check_chunks(hid_t plist, hid_t space, std::uint64_t type_size) const {
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank <= 0) return;
    const auto shape = chunk_shape(plist, rank);
    std::vector<hsize_t> max_dims(static_cast<std::size_t>(rank));
    if (!shape || H5Sget_simple_extent_dims(space, nullptr, max_dims.data()) < 0) {
      corrupt("chunk shape cannot be read");
    }
    const std::vector<hsize_t>& chunk = *shape;
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
    if (filters > 0) return;  // check_decoded_rows sees to their chunks
    if (H5Dget_storage_size(dataset_) != chunks * chunk_bytes) {
      corrupt("stored size differs from its chunks");
    }
    // Without filters every written chunk holds exactly one chunk's bytes.
    // Looking a chunk up by number walks the chunk index, so only modest
    // counts are checked one by one (the total above holds for all).
    constexpr hsize_t max_checked_chunks = 2048;
    if (chunks > max_checked_chunks) return;
    std::vector<hsize_t> offset(chunk.size());
    for (hsize_t c = 0; c < chunks; ++c) {
      unsigned mask = 0;
      haddr_t address = 0;
      hsize_t size = 0;
      if (H5Dget_chunk_info(dataset_, space, c, offset.data(), &mask, &address, &size) < 0 ||
          mask != 0 || size != chunk_bytes) {
        corrupt("chunk size or filter mask inconsistent");
      }
    }
  }

  // `size` is the chunk's stored size as the same look-up as H5Dread_chunk's
  // gives it, so the read fills the buffer exactly.
  void check_decoded_chunk(const std::vector<PipelineFilter>& pipeline,
                           const std::vector<hsize_t>& offset, hsize_t size,
                           std::uint64_t chunk_bytes) const {
    // Written out only for a message: this runs for every chunk.
    const auto where = [&offset] { return fmt::format("({})", fmt::join(offset, ", ")); };
    std::vector<unsigned char> stored(size);
    std::uint32_t mask = 0;
    const unsigned all_filters = (1u << pipeline.size()) - 1;
    if (H5Dread_chunk(dataset_, H5P_DEFAULT, offset.data(), &mask, stored.data()) < 0 ||
        (mask & ~all_filters) != 0) {
      corrupt(fmt::format("its chunk at {} cannot be read", where()));
    }
    const DecodedChunk decoded = decoded_chunk_size(pipeline, mask, std::move(stored), chunk_bytes);
    if (decoded.outcome == DecodedChunk::Outcome::kUndecodable) {
      corrupt(fmt::format("its chunk at {} cannot be decoded", where()));
    }
    if (decoded.outcome == DecodedChunk::Outcome::kSize && decoded.bytes != chunk_bytes) {
      corrupt(fmt::format("its chunk at {} decodes to {} bytes, not a chunk's {}", where(),
                          decoded.bytes, chunk_bytes));
    }
  }

  // Moves `offset` to the next chunk of the grid, last dimension fastest;
  // false after the last.
  static bool next_chunk(const std::vector<hsize_t>& extent, const std::vector<hsize_t>& chunk,
                         std::vector<hsize_t>* offset) {
    for (std::size_t d = offset->size(); d-- > 0;) {
      (*offset)[d] += chunk[d];
      if ((*offset)[d] < extent[d]) return true;
      (*offset)[d] = 0;
    }
    return false;
  }

  std::uint64_t file_bytes() const {
    hsize_t bytes = 0;
    const Handle file(H5Iget_file_id(dataset_), H5Fclose);
    if (!file || H5Fget_filesize(file.get(), &bytes) < 0) corrupt("file size unknown");
    return bytes;
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
    const std::uint64_t file_bytes = this->file_bytes();
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

std::optional<std::vector<hsize_t>> chunk_shape(hid_t plist, int rank) {
  if (rank <= 0) return std::nullopt;
  std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
  if (H5Pget_chunk(plist, rank, chunk.data()) != rank) return std::nullopt;
  return chunk;
}

void check_storage_layout(hid_t dataset, const std::string& path, const std::string& name) {
  StorageCheck(dataset, path, name).check_layout();
}

void check_decoded_rows(hid_t dataset, const std::string& path, const std::string& name,
                        std::uint64_t first, std::uint64_t count,
                        const std::function<void()>& progress) {
  StorageCheck(dataset, path, name).check_decoded_rows(first, count, progress);
}

void check_storage(hid_t dataset, const std::string& path, const std::string& name) {
  const StorageCheck check(dataset, path, name);
  check.check_layout();
  check.check_decoded_rows(0, UINT64_MAX, nullptr);
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
