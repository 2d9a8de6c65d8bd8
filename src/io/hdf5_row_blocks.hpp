#pragma once
// Private to the readers. The feature rows of an HDF5 file read on demand by
// row blocks (hyperslabs of one or more 2-D datasets stacked by rows, as the
// USPS layout stacks train/data and test/data): a pass over the rows holds
// one block at a time, never the whole matrix.
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_util.hpp"
#include "topkfs/data/row_source.hpp"

namespace topkfs::detail {

class Hdf5RowBlocks final : public RowSource {
 public:
  // The datasets named `parts` (checked numeric, 1-D or 2-D, `cols` columns
  // each, by the reader) of the file at `path`, stacked in order.
  Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts, std::int64_t cols);

  std::int64_t row_count() const override { return rows_; }
  std::int64_t column_count() const override { return cols_; }
  RowStorage storage() const override { return RowStorage::RowBlocks; }
  // Runs of consecutive indices are read with one hyperslab each.
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;

 private:
  struct Part {
    std::string name;
    hdf5::Handle dataset;
    std::int64_t first = 0;  // of the stacked rows
    std::int64_t rows = 0;
  };
  // Rows [first, first + count) of the stacked rows, all in one part.
  void read_run(const Part& part, std::int64_t first, std::int64_t count, float* out) const;

  std::string path_;
  hdf5::Handle file_;
  std::vector<Part> parts_;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
};

}  // namespace topkfs::detail
