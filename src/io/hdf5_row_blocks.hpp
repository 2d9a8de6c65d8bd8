#pragma once
// Private to the readers. The feature rows of an HDF5 file read on demand by
// row blocks (hyperslabs of one or more 2-D datasets stacked by rows, as the
// USPS layout stacks train/data and test/data): blocks of the file's chunk
// rows, each decompressed whole and kept in a bounded cache, never the whole
// matrix (docs/scale.md, "HDF5 above the budget").
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hdf5_util.hpp"
#include "topkfs/data/row_source.hpp"

namespace topkfs::detail {

class Hdf5RowBlocks final : public RowSource {
 public:
  // The datasets named `parts` (checked numeric, 1-D or 2-D, `cols` columns
  // each, by the reader) of the file at `path`, stacked in order. At most
  // `cache_bytes` of decompressed row blocks are kept (at least two blocks).
  Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts, std::int64_t cols,
                std::uint64_t cache_bytes);
  ~Hdf5RowBlocks() override;
  Hdf5RowBlocks(const Hdf5RowBlocks&) = delete;
  Hdf5RowBlocks& operator=(const Hdf5RowBlocks&) = delete;

  std::int64_t row_count() const override { return rows_; }
  std::int64_t column_count() const override { return cols_; }
  RowStorage storage() const override { return RowStorage::RowBlocks; }
  // Each row from its block, read whole (every chunk it spans decompressed
  // once) when it is not in the cache; safe from several threads.
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  // Blocks of the first part's chunk rows (about 1 MB when it is not
  // chunked); a window is half the cache, the other half is read ahead.
  ReadingWindow reading_window() const override { return {block_rows_, window_blocks_}; }
  // A thread reads the pass's blocks ahead, a window ahead of the reader.
  void plan_pass(const std::vector<std::int64_t>& rows) const override;

 private:
  struct Part {
    std::string name;
    hdf5::Handle dataset;
    std::int64_t first = 0;  // of the stacked rows
    std::int64_t rows = 0;
  };
  // Rows [first, first + count) of the stacked rows, all in one part.
  void read_run(const Part& part, std::int64_t first, std::int64_t count, float* out) const;
  // Block `index` (stacked rows / block_rows_) read from the file; under
  // file_mutex_ (libhdf5 is called from one thread at a time).
  std::vector<float> read_block(std::int64_t index) const;
  // The cached block `index`, read here if absent (or waited for while the
  // read-ahead thread reads it). `lock` holds mutex_.
  const std::vector<float>& block(std::int64_t index, std::unique_lock<std::mutex>& lock) const;
  // Makes room for a block needed at `place` of the plan (-1: now), unless
  // every cached block is needed sooner; false then. Under mutex_.
  bool make_room(std::int64_t place) const;
  std::int64_t planned_position(std::int64_t index) const;
  void read_ahead() const;  // the read-ahead thread

  std::string path_;
  hdf5::Handle file_;
  std::vector<Part> parts_;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::int64_t block_rows_ = 1;
  std::int64_t cache_blocks_ = 2;
  std::int64_t window_blocks_ = 1;

  mutable std::mutex file_mutex_;
  mutable std::mutex mutex_;  // everything below
  mutable std::condition_variable changed_;
  mutable std::unordered_map<std::int64_t, std::vector<float>> cache_;
  mutable std::int64_t loading_ = -1;  // the block the read-ahead thread reads
  // The pass planned: its blocks in the order first read, each one's place.
  mutable std::vector<std::int64_t> plan_;
  mutable std::unordered_map<std::int64_t, std::int64_t> place_;
  mutable std::int64_t reached_ = -1;  // the furthest place the reader has read
  mutable std::int64_t next_ = 0;      // the next place to read ahead
  mutable bool stopping_ = false;
  mutable std::thread reader_;
};

}  // namespace topkfs::detail
