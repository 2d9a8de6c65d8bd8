#include "hdf5_stored_matrix.hpp"

#include <fmt/format.h>
#include <libdeflate.h>

#include <algorithm>
#include <memory>

#include "hdf5_chunked_reads.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"

namespace topkfs::detail {
namespace {

// A piece of a chunked dataset spans this many values or one chunk (and at
// most hdf5::kChunksPerRead chunks): small enough that the threads sharing
// a block's pieces share them evenly (USPS: a block of 456 rows is 16
// pieces of one chunk), large enough that datasets of tiny chunks are not
// read a chunk per call.
constexpr std::int64_t kPieceValues = 8192;

struct DecompressorFree {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

// What one thread decodes with, kept from piece to piece.
struct Scratch {
  std::unique_ptr<libdeflate_decompressor, DecompressorFree> inflater{
      libdeflate_alloc_decompressor()};
  std::vector<unsigned char> decoded;
  std::vector<unsigned char> spare;
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The bytes of `n` values of `size` bytes each, stored by the shuffle
// filter (every value's first byte, then every second byte, ...), put back
// in order into `out`.
void unshuffle(const unsigned char* in, std::size_t bytes, std::size_t size,
               std::vector<unsigned char>& out) {
  out.resize(bytes);
  const std::size_t n = size > 0 ? bytes / size : 0;
  for (std::size_t b = 0; b < size; ++b) {
    const unsigned char* from = in + b * n;
    for (std::size_t i = 0; i < n; ++i) out[i * size + b] = from[i];
  }
  std::copy(in + n * size, in + bytes, out.data() + n * size);  // a tail the filter leaves
}

}  // namespace

Hdf5StoredMatrix::Hdf5StoredMatrix(const std::string& path, const std::vector<std::string>& names,
                                   std::int64_t cols, bool transposed)
    : path_(path), file_bytes_(file_size(path)), cols_(cols), transposed_(transposed) {
  const hdf5::QuietErrors quiet;
  file_ = hdf5::file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file_) throw DataError(fmt::format("{}: cannot open the HDF5 file", path));
  for (const auto& name : names) open_part(name);
}

void Hdf5StoredMatrix::open_part(const std::string& name) {
  Part part;
  part.name = name;
  part.dataset = hdf5::dataset_handle(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT));
  if (!part.dataset) throw DataError(fmt::format("{}: cannot open dataset '{}'", path_, name));
  const std::vector<std::uint64_t> dims = hdf5::dataset_dims(part.dataset.get());
  part.rank = static_cast<int>(dims.size());
  const bool shaped = transposed_ ? part.rank == 2 : part.rank == 1 || part.rank == 2;
  if (!shaped) throw DataError(fmt::format("{}: dataset '{}' is not a matrix", path_, name));
  const std::size_t row_dim = transposed_ ? 1 : 0;
  part.first = rows_;
  part.rows = static_cast<std::int64_t>(dims[row_dim]);
  const auto stored_cols =
      part.rank == 1 ? std::int64_t{1} : static_cast<std::int64_t>(dims[1 - row_dim]);
  if (stored_cols != cols_) {
    throw DataError(
        fmt::format("{}: dataset '{}' has {} columns, not {}", path_, name, stored_cols, cols_));
  }
  part.type = hdf5::type_handle(H5Dget_type(part.dataset.get()));
  if (!part.type) throw DataError(fmt::format("{}: dataset '{}' has no type", path_, name));
  part.value_bytes = H5Tget_size(part.type.get());
  part.stored_as_float = H5Tequal(part.type.get(), H5T_NATIVE_FLOAT) > 0;
  const hdf5::Handle plist(H5Dget_create_plist(part.dataset.get()), H5Pclose);
  if (plist && H5Pget_layout(plist.get()) == H5D_CHUNKED) {
    const auto chunk = hdf5::chunk_shape(plist.get(), part.rank);
    if (chunk && std::find(chunk->begin(), chunk->end(), 0) == chunk->end()) {
      part.chunk_rows = static_cast<std::int64_t>((*chunk)[row_dim]);
      part.chunk_cols = part.rank == 1 ? 1 : static_cast<std::int64_t>((*chunk)[1 - row_dim]);
      const auto value_class = H5Tget_class(part.type.get());
      part.raw = hdf5::read_pipeline(plist.get(), &part.filters) &&
                 (value_class == H5T_INTEGER || value_class == H5T_FLOAT) &&
                 std::all_of(part.filters.begin(), part.filters.end(), [](const auto& filter) {
                   return filter.id == H5Z_FILTER_DEFLATE || filter.id == H5Z_FILTER_SHUFFLE;
                 });
    }
  }
  rows_ += part.rows;
  parts_.push_back(std::move(part));
}

std::int64_t Hdf5StoredMatrix::chunk_rows() const {
  return parts_.empty() ? 0 : parts_.front().chunk_rows;
}

std::vector<MatrixPiece> Hdf5StoredMatrix::pieces(std::int64_t first, std::int64_t count) const {
  std::vector<MatrixPiece> pieces;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    const Part& part = parts_[p];
    const std::int64_t begin = std::max(first, part.first) - part.first;
    const std::int64_t end = std::min(first + count, part.first + part.rows) - part.first;
    if (begin >= end) continue;
    if (part.chunk_rows == 0) {  // not chunked: the block's rows in one read
      pieces.push_back({p, begin, end, begin, 0, cols_});
      continue;
    }
    const std::int64_t chunk_values = part.chunk_rows * part.chunk_cols;
    const std::int64_t across = std::clamp<std::int64_t>(
        kPieceValues / chunk_values, 1, static_cast<std::int64_t>(hdf5::kChunksPerRead));
    for (std::int64_t chunk_row = begin / part.chunk_rows * part.chunk_rows; chunk_row < end;
         chunk_row += part.chunk_rows) {
      const std::int64_t rows_begin = std::max(begin, chunk_row);
      const std::int64_t rows_end = std::min(end, chunk_row + part.chunk_rows);
      for (std::int64_t col = 0; col < cols_; col += across * part.chunk_cols) {
        pieces.push_back({p, rows_begin, rows_end, chunk_row, col,
                          std::min(cols_, col + across * part.chunk_cols)});
      }
    }
  }
  return pieces;
}

void Hdf5StoredMatrix::corrupt(const Part& part, const MatrixPiece& piece) const {
  throw DataError(
      fmt::format("{}: cannot read rows {}..{} of dataset '{}': the file is truncated or corrupt",
                  path_, piece.rows_begin, piece.rows_end - 1, part.name));
}

void Hdf5StoredMatrix::read_region(const Part& part, const MatrixPiece& piece, std::int64_t c0,
                                   std::int64_t c1, std::vector<float>& values) const {
  const std::int64_t rows = piece.rows_end - piece.rows_begin;
  values.resize(static_cast<std::size_t>(rows * (c1 - c0)));
  // The region in the dataset's own dimensions.
  std::vector<hsize_t> start{static_cast<hsize_t>(piece.rows_begin), static_cast<hsize_t>(c0)};
  std::vector<hsize_t> size{static_cast<hsize_t>(rows), static_cast<hsize_t>(c1 - c0)};
  if (transposed_) {
    std::swap(start[0], start[1]);
    std::swap(size[0], size[1]);
  }
  start.resize(static_cast<std::size_t>(part.rank));
  size.resize(static_cast<std::size_t>(part.rank));
  const hdf5::Handle file_space = hdf5::space_handle(H5Dget_space(part.dataset.get()));
  const hdf5::Handle memory_space =
      hdf5::space_handle(H5Screate_simple(part.rank, size.data(), nullptr));
  const bool read = file_space && memory_space &&
                    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                        size.data(), nullptr) >= 0 &&
                    H5Dread(part.dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(),
                            file_space.get(), H5P_DEFAULT, values.data()) >= 0;
  if (!read) corrupt(part, piece);
}

void Hdf5StoredMatrix::decode(const MatrixPiece& piece, std::int64_t block_first, float* block,
                              std::mutex& file_lock) const {
  const Part& part = parts_[piece.part];
  const std::int64_t rows = piece.rows_end - piece.rows_begin;
  float* const to = block + (part.first + piece.rows_begin - block_first) * cols_;
  // Values of rows x (c1 - c0) at `from`: element (r, c) at r * row_step +
  // c * col_step, placed at columns [c0, c1) of the block's rows.
  const auto place = [&](const float* from, std::int64_t c0, std::int64_t c1, std::int64_t row_step,
                         std::int64_t col_step) {
    if (col_step == 1) {
      for (std::int64_t r = 0; r < rows; ++r) {
        std::copy(from + r * row_step, from + r * row_step + (c1 - c0), to + r * cols_ + c0);
      }
      return;
    }
    for (std::int64_t c = c0; c < c1; ++c) {
      const float* column = from + (c - c0) * col_step;
      for (std::int64_t r = 0; r < rows; ++r) to[r * cols_ + c] = column[r * row_step];
    }
  };
  // A region read by libhdf5: row-major in the dataset's dimensions.
  const auto place_region = [&](const std::vector<float>& values, std::int64_t c0,
                                std::int64_t c1) {
    if (transposed_) {
      place(values.data(), c0, c1, 1, rows);
    } else {
      place(values.data(), c0, c1, c1 - c0, 1);
    }
  };
  std::vector<float> region;
  if (!part.raw) {
    {
      const std::lock_guard<std::mutex> lock(file_lock);
      const hdf5::QuietErrors quiet;
      read_region(part, piece, piece.cols_begin, piece.cols_end, region);
    }
    place_region(region, piece.cols_begin, piece.cols_end);
    return;
  }

  // The piece's chunks, left to right: their stored bytes and filter
  // masks, or (a chunk never written) its fill values read by libhdf5.
  struct Stored {
    std::int64_t c0 = 0;
    std::int64_t c1 = 0;
    std::vector<unsigned char> bytes;
    std::uint32_t skipped = 0;
    std::vector<float> filled;
  };
  std::vector<Stored> chunks;
  for (std::int64_t c0 = piece.cols_begin; c0 < piece.cols_end; c0 += part.chunk_cols) {
    chunks.push_back({c0, std::min(piece.cols_end, c0 + part.chunk_cols), {}, 0, {}});
  }
  {
    const std::lock_guard<std::mutex> lock(file_lock);
    const hdf5::QuietErrors quiet;
    for (Stored& chunk : chunks) {
      std::vector<hsize_t> offset{static_cast<hsize_t>(piece.chunk_row),
                                  static_cast<hsize_t>(chunk.c0)};
      if (transposed_) std::swap(offset[0], offset[1]);
      offset.resize(static_cast<std::size_t>(part.rank));
      // A chunk never written has no address (H5Dget_chunk_storage_size
      // would fail on it, an error libhdf5 records).
      unsigned mask = 0;
      haddr_t address = HADDR_UNDEF;
      hsize_t bytes = 0;
      if (H5Dget_chunk_info_by_coord(part.dataset.get(), offset.data(), &mask, &address, &bytes) <
              0 ||
          address == HADDR_UNDEF || bytes == 0) {
        read_region(part, piece, chunk.c0, chunk.c1, chunk.filled);
        continue;
      }
      if (bytes > file_bytes_) corrupt(part, piece);
      chunk.bytes.resize(static_cast<std::size_t>(bytes));
      if (H5Dread_chunk(part.dataset.get(), H5P_DEFAULT, offset.data(), &chunk.skipped,
                        chunk.bytes.data()) < 0) {
        corrupt(part, piece);
      }
    }
  }

  Scratch& scratch = thread_scratch();
  const auto chunk_values = static_cast<std::size_t>(part.chunk_rows * part.chunk_cols);
  const std::size_t chunk_bytes = chunk_values * part.value_bytes;
  for (Stored& chunk : chunks) {
    if (chunk.bytes.empty()) {
      place_region(chunk.filled, chunk.c0, chunk.c1);
      continue;
    }
    // Undone in the reverse of the order they were applied in, skipping
    // those the chunk's mask says were not.
    std::vector<unsigned char>* data = &chunk.bytes;
    for (std::size_t step = part.filters.size(); step-- > 0;) {
      if (step < 32 && (chunk.skipped >> step & 1u) != 0) continue;
      std::vector<unsigned char>* out =
          data == &scratch.decoded ? &scratch.spare : &scratch.decoded;
      if (part.filters[step].id == H5Z_FILTER_DEFLATE) {
        // Room for the values and a byte more: a stream that inflates to
        // more than a chunk is refused, not cut.
        out->resize(chunk_bytes + 1);
        std::size_t used = 0;
        std::size_t made = 0;
        if (libdeflate_zlib_decompress_ex(scratch.inflater.get(), data->data(), data->size(),
                                          out->data(), out->size(), &used,
                                          &made) != LIBDEFLATE_SUCCESS) {
          corrupt(part, piece);
        }
        out->resize(made);
      } else {
        unshuffle(data->data(), data->size(), part.value_bytes, *out);
      }
      data = out;
    }
    if (data->size() != chunk_bytes) corrupt(part, piece);
    if (!part.stored_as_float) {
      // Converted in place: room for the wider of the two types.
      data->resize(chunk_values * std::max<std::size_t>(part.value_bytes, sizeof(float)));
      const std::lock_guard<std::mutex> lock(file_lock);
      const hdf5::QuietErrors quiet;
      if (H5Tconvert(part.type.get(), H5T_NATIVE_FLOAT, chunk_values, data->data(), nullptr,
                     H5P_DEFAULT) < 0) {
        corrupt(part, piece);
      }
    }
    const float* values =
        reinterpret_cast<const float*>(data->data()) +
        (piece.rows_begin - piece.chunk_row) * (transposed_ ? std::int64_t{1} : part.chunk_cols);
    if (transposed_) {
      place(values, chunk.c0, chunk.c1, 1, part.chunk_rows);
    } else {
      place(values, chunk.c0, chunk.c1, part.chunk_cols, 1);
    }
  }
}

}  // namespace topkfs::detail
