#include "hdf5_row_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hdf5_chunked_reads.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::detail {

Hdf5RowBlocks::Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts,
                             std::int64_t cols)
    : path_(path), cols_(cols) {
  const hdf5::QuietErrors quiet;
  file_ = hdf5::file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file_) throw DataError(fmt::format("{}: cannot open the HDF5 file", path));
  for (const auto& name : parts) {
    Part part;
    part.name = name;
    part.dataset = hdf5::dataset_handle(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT));
    if (!part.dataset) throw DataError(fmt::format("{}: cannot open dataset '{}'", path, name));
    const auto dims = hdf5::dataset_dims(part.dataset.get());
    part.first = rows_;
    part.rows = dims.empty() ? 0 : static_cast<std::int64_t>(dims[0]);
    rows_ += part.rows;
    parts_.push_back(std::move(part));
  }
}

void Hdf5RowBlocks::read_run(const Part& part, std::int64_t first, std::int64_t count,
                             float* out) const {
  const hdf5::QuietErrors quiet;
  if (!hdf5::read_rows_in_pieces(part.dataset.get(), H5T_NATIVE_FLOAT,
                                 static_cast<std::uint64_t>(first - part.first),
                                 static_cast<std::uint64_t>(count), out)) {
    throw DataError(
        fmt::format("{}: cannot read rows {}..{} of dataset '{}': the file is truncated or corrupt",
                    path_, first - part.first, first - part.first + count - 1, part.name));
  }
}

void Hdf5RowBlocks::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  std::size_t i = 0;
  while (i < count) {
    const auto part = std::find_if(parts_.begin(), parts_.end(), [&](const Part& p) {
      return rows[i] >= p.first && rows[i] < p.first + p.rows;
    });
    TOPKFS_ASSERT(part != parts_.end());
    // The longest run of consecutive rows from i within this part.
    std::size_t end = i + 1;
    while (end < count && rows[end] == rows[end - 1] + 1 && rows[end] < part->first + part->rows) {
      ++end;
    }
    const auto run = static_cast<std::int64_t>(end - i);
    read_run(*part, rows[i], run,
             out + static_cast<std::size_t>(static_cast<std::int64_t>(i) * cols_));
    i = end;
  }
}

}  // namespace topkfs::detail
