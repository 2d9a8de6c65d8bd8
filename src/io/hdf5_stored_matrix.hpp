#pragma once
// Private to the readers. A feature matrix stored in HDF5 datasets (one, or
// several stacked by rows as the USPS layout stacks train/data and
// test/data; each as C and NumPy write it, or transposed as MATLAB v7.3
// writes a matrix), read as blocks of rows cut into pieces that several
// threads decode at once.
//
// libhdf5 runs one call at a time in a process, and inflating is most of
// the time a read takes (USPS: 40 ms of 41 for its 256 gzip chunks). So a
// piece's chunks are read raw through libhdf5 under a lock (H5Dread_chunk:
// no filter runs), then inflated with libdeflate (about 3 times zlib's
// speed), unshuffled and placed outside it, where the threads sharing the
// block's pieces run in parallel. A dataset whose filters are others than
// deflate and shuffle, a chunk never written (fill values), and a dataset
// not chunked are read through libhdf5 itself, piece by piece, under the
// lock. Values whose stored type is not float32 are converted by libhdf5
// (H5Tconvert, under the lock), as a read of the whole matrix converts
// them.
#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "hdf5_chunk_decoding.hpp"
#include "hdf5_util.hpp"

namespace topkfs::detail {

// Rows [rows_begin, rows_end) and columns [cols_begin, cols_end) of one
// part (its own row numbers), which lie in the chunks whose first row is
// `chunk_row` (chunked parts) and are decoded as one unit of work.
struct MatrixPiece {
  std::size_t part = 0;
  std::int64_t rows_begin = 0;
  std::int64_t rows_end = 0;
  std::int64_t chunk_row = 0;
  std::int64_t cols_begin = 0;
  std::int64_t cols_end = 0;
};

class Hdf5StoredMatrix {
 public:
  // The datasets `names` of the file at `path` (checked numeric, of `cols`
  // columns, by the reader), stacked in order. `transposed`: each dataset
  // is (columns x rows), a MATLAB matrix.
  Hdf5StoredMatrix(const std::string& path, const std::vector<std::string>& names,
                   std::int64_t cols, bool transposed);

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  // The rows of the first part's chunks (0 when it is not chunked): blocks
  // aligned to them decode each chunk once.
  std::int64_t chunk_rows() const;

  // The pieces of rows [first, first + count) of the stacked matrix.
  std::vector<MatrixPiece> pieces(std::int64_t first, std::int64_t count) const;

  // Decodes `piece` into `block`, which holds the stacked rows from
  // `block_first` on, cols() values each, row-major. Calls libhdf5 only
  // while holding `file_lock`; safe from several threads at once. Throws
  // DataError naming the file, the dataset and the rows when a chunk does
  // not decode.
  void decode(const MatrixPiece& piece, std::int64_t block_first, float* block,
              std::mutex& file_lock) const;

 private:
  struct Part {
    std::string name;
    hdf5::Handle dataset;
    hdf5::Handle type;       // as stored
    std::int64_t first = 0;  // of the stacked rows
    std::int64_t rows = 0;
    int rank = 2;
    // The chunk's extent along the matrix's rows and columns; 0 when not
    // chunked.
    std::int64_t chunk_rows = 0;
    std::int64_t chunk_cols = 0;
    // Its chunks read raw and decoded here: chunked, filtered by deflate
    // and shuffle only.
    bool raw = false;
    std::vector<hdf5::PipelineFilter> filters;
    std::size_t value_bytes = 4;   // of the stored type
    bool stored_as_float = false;  // native float32: no conversion
  };

  void open_part(const std::string& name);
  // Rows [piece.rows_begin, rows_end) x columns [c0, c1) of the part read
  // by libhdf5 into `values` (the region row-major, float); under the lock.
  void read_region(const Part& part, const MatrixPiece& piece, std::int64_t c0, std::int64_t c1,
                   std::vector<float>& values) const;
  [[noreturn]] void corrupt(const Part& part, const MatrixPiece& piece) const;

  std::string path_;
  std::uint64_t file_bytes_ = 0;
  hdf5::Handle file_;
  std::vector<Part> parts_;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  bool transposed_ = false;
};

}  // namespace topkfs::detail
