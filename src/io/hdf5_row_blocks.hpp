#pragma once
// Private to the readers. The feature rows of an HDF5 matrix (an HDF5 file's
// datasets, or a MATLAB v7.3 variable) read on demand by row blocks: blocks
// of the file's chunk rows, each decoded whole and kept in a bounded cache,
// never the whole matrix (docs/scale.md, "HDF5 above the budget").
//
// A block is decoded as pieces (Hdf5StoredMatrix) that every thread needing
// it takes a share of. A planned pass is read ahead: by a thread of the
// source's own when a core is free (ReadAhead::OnSpareCore), else by the
// reading threads themselves, each taking the next window's pieces at the
// pace the current window's rows are read (ReadAhead::ByReaders), so that
// a team's members share the decompression evenly instead of one
// decompressing a block while the others wait for it.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hdf5_stored_matrix.hpp"
#include "topkfs/data/row_source.hpp"

namespace topkfs::detail {

class Hdf5RowBlocks final : public RowSource {
 public:
  // The datasets named `parts` (checked numeric, 1-D or 2-D, `cols` columns
  // each, by the reader) of the file at `path`, stacked in order;
  // `transposed`: each is (columns x rows), a MATLAB matrix. At most
  // `cache_bytes` of decoded row blocks are kept (at least two blocks).
  Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts, std::int64_t cols,
                std::uint64_t cache_bytes, bool transposed = false);
  ~Hdf5RowBlocks() override;
  Hdf5RowBlocks(const Hdf5RowBlocks&) = delete;
  Hdf5RowBlocks& operator=(const Hdf5RowBlocks&) = delete;

  std::int64_t row_count() const override { return matrix_.rows(); }
  std::int64_t column_count() const override { return matrix_.cols(); }
  RowStorage storage() const override { return RowStorage::RowBlocks; }
  // Each row from its block, decoded whole (every chunk it spans once) when
  // it is not in the cache, with the other threads that need it; then, in a
  // planned pass read ByReaders, this thread's share of the pieces due.
  // Safe from several threads.
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  // Blocks of the first part's chunk rows (about 1 MB when it is not
  // chunked); a window is half the cache, the other half is read ahead.
  ReadingWindow reading_window() const override { return {block_rows_, window_blocks_}; }
  void plan_pass(const std::vector<std::int64_t>& rows, ReadAhead read_ahead) const override;

 private:
  // A cached block: its values, filled piece by piece by whichever threads
  // claim the pieces. Complete when every piece is done; immutable then.
  struct Block {
    std::int64_t first = 0;  // its first row
    std::vector<float> values;
    std::vector<MatrixPiece> pieces;
    std::size_t claimed = 0;
    std::size_t done = 0;
    std::exception_ptr error;  // of a piece that failed
    bool complete() const { return done == pieces.size(); }
  };
  using BlockPtr = std::shared_ptr<Block>;

  // A block of the planned pass, at its place in the order first read.
  struct Planned {
    std::int64_t index = 0;
    std::int64_t first_read = 0;  // the position in the pass of its first row
    std::int64_t rows_left = 0;   // its rows the pass has yet to read
    std::int64_t pieces = 0;
    std::int64_t pieces_before = 0;  // of the earlier blocks of its window
  };

  std::int64_t block_first(std::int64_t index) const { return index * block_rows_; }
  std::int64_t block_count(std::int64_t index) const;
  BlockPtr new_block(std::int64_t index) const;
  // The complete block `index`, decoded here (with any other thread that
  // needs it) when it is not cached; `rows` of it are being read. Rethrows
  // a piece's error.
  BlockPtr ready_block(std::int64_t index, std::int64_t rows) const;
  // Decodes piece `piece` of `block` (claimed by this thread) and marks it
  // done; `lock` holds mutex_ and is released meanwhile.
  void decode_claimed(const BlockPtr& block, std::size_t piece,
                      std::unique_lock<std::mutex>& lock) const;
  // The next piece of the plan to read ahead, claimed, or false: none is
  // left within the window after the reader's, the cache has no room for
  // it yet, or (`paced`) none is due at the rows read so far.
  bool claim_ahead(bool paced, BlockPtr& block, std::size_t& piece) const;
  // When the piece `ordinal` of window `window`'s pieces is due in a pass
  // read ByReaders: spread over the first three quarters of the rows of
  // the window before it.
  std::int64_t due_at(std::int64_t window, std::int64_t ordinal) const;
  // Makes room for a block needed at `place` of the plan (-1: now), unless
  // every cached block is needed sooner or is being decoded; false then.
  // Under mutex_.
  bool make_room(std::int64_t place) const;
  std::int64_t planned_position(std::int64_t index) const;
  void read_ahead_loop() const;  // the read-ahead thread

  Hdf5StoredMatrix matrix_;
  std::int64_t block_rows_ = 1;
  std::int64_t cache_blocks_ = 2;
  std::int64_t window_blocks_ = 1;

  mutable std::mutex file_mutex_;  // libhdf5, one call at a time
  mutable std::mutex mutex_;       // everything below
  mutable std::condition_variable changed_;
  mutable std::unordered_map<std::int64_t, BlockPtr> cache_;
  // The pass planned: its blocks in the order first read, each one's place.
  mutable std::vector<Planned> plan_;
  mutable std::unordered_map<std::int64_t, std::int64_t> place_;
  mutable ReadAhead read_ahead_ = ReadAhead::ByReaders;
  mutable std::int64_t rows_read_ = 0;  // rows read since the plan
  mutable std::int64_t reached_ = -1;   // the furthest place the readers have read
  mutable std::int64_t ahead_ = 0;      // the first place whose pieces may not all be claimed
  mutable bool stopping_ = false;
  mutable std::thread reader_;
};

}  // namespace topkfs::detail
