#include "hdf5_row_blocks.hpp"

#include <algorithm>
#include <limits>

#include "topkfs/core/error.hpp"

namespace topkfs::detail {

Hdf5RowBlocks::Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts,
                             std::int64_t cols, std::uint64_t cache_bytes, bool transposed)
    : matrix_(path, parts, cols, transposed) {
  // Blocks are aligned to the first part's chunks (the parts of one file are
  // written alike); a block that crosses into the next part is read in
  // pieces of both.
  const std::int64_t row_bytes = std::max<std::int64_t>(1, cols) * 4;
  constexpr std::int64_t kUnchunkedBlockBytes = 1 << 20;
  const std::int64_t chunk_rows = matrix_.chunk_rows();
  block_rows_ = chunk_rows > 0 ? chunk_rows : kUnchunkedBlockBytes / row_bytes;
  // Chunks of a few whole columns would make one block of nearly every row:
  // such blocks are cut to half the cache (or 4 MB), each chunk then decoded
  // once for every block it spans.
  const auto cut =
      std::max<std::uint64_t>(cache_bytes / 2, 4 << 20) / static_cast<std::uint64_t>(row_bytes);
  block_rows_ = std::min<std::int64_t>(block_rows_, static_cast<std::int64_t>(cut));
  block_rows_ = std::clamp<std::int64_t>(block_rows_, 1, std::max<std::int64_t>(1, row_count()));
  cache_blocks_ = std::max<std::int64_t>(
      2,
      static_cast<std::int64_t>(cache_bytes / static_cast<std::uint64_t>(block_rows_ * row_bytes)));
  window_blocks_ = cache_blocks_ / 2;
}

Hdf5RowBlocks::~Hdf5RowBlocks() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
}

std::int64_t Hdf5RowBlocks::block_count(std::int64_t index) const {
  return std::min(block_rows_, row_count() - block_first(index));
}

Hdf5RowBlocks::BlockPtr Hdf5RowBlocks::new_block(std::int64_t index) const {
  auto block = std::make_shared<Block>();
  block->first = block_first(index);
  block->pieces = matrix_.pieces(block_first(index), block_count(index));
  block->values.resize(static_cast<std::size_t>(block_count(index) * column_count()));
  return block;
}

std::int64_t Hdf5RowBlocks::planned_position(std::int64_t index) const {
  const auto found = place_.find(index);
  return found == place_.end() ? -1 : found->second;
}

bool Hdf5RowBlocks::make_room(std::int64_t place) const {
  if (static_cast<std::int64_t>(cache_.size()) < cache_blocks_) return true;
  // The block needed furthest ahead goes (Belady's rule): one whose planned
  // rows have all been read, or that the pass does not read, first; else
  // the latest planned, unless that is needed sooner than `place` (-1: now,
  // by a reader). A block being decoded stays.
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  const auto next_use = [&](std::int64_t index) {
    const std::int64_t at = planned_position(index);
    return at < 0 || plan_[static_cast<std::size_t>(at)].rows_left == 0 ? kNever : at;
  };
  auto victim = cache_.end();
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->second->done < it->second->pieces.size()) continue;
    if (victim == cache_.end() || next_use(it->first) > next_use(victim->first)) victim = it;
  }
  if (victim == cache_.end() || (place >= 0 && next_use(victim->first) <= place)) return false;
  cache_.erase(victim);
  return true;
}

std::int64_t Hdf5RowBlocks::due_at(std::int64_t window, std::int64_t ordinal) const {
  if (window == 0) return 0;  // the pass's first window is needed at once
  const auto first_place = [&](std::int64_t w) {
    return plan_[static_cast<std::size_t>(w * window_blocks_)].first_read;
  };
  const std::int64_t begin = first_place(window - 1);
  const std::int64_t end = first_place(window);
  const Planned& last =
      plan_[static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(plan_.size()),
                                                            (window + 1) * window_blocks_) -
                                     1)];
  const std::int64_t pieces = std::max<std::int64_t>(1, last.pieces_before + last.pieces);
  return begin + (end - begin) * 3 * ordinal / (4 * pieces);
}

bool Hdf5RowBlocks::claim_ahead(bool paced, BlockPtr& block, std::size_t& piece) const {
  const std::int64_t reader_window = std::max<std::int64_t>(0, reached_) / window_blocks_;
  for (; ahead_ < static_cast<std::int64_t>(plan_.size()); ++ahead_) {
    const Planned& planned = plan_[static_cast<std::size_t>(ahead_)];
    const std::int64_t window = ahead_ / window_blocks_;
    // At most a window beyond the readers', so that the cache holds both.
    if (window > reader_window + 1) return false;
    auto found = cache_.find(planned.index);
    if (found != cache_.end()) {
      if (found->second->claimed == found->second->pieces.size()) continue;
    } else if (window < reader_window || planned.rows_left == 0) {
      continue;  // the readers have passed it: they read it if they need it
    }
    const std::int64_t claimed =
        found == cache_.end() ? 0 : static_cast<std::int64_t>(found->second->claimed);
    if (paced && rows_read_ < due_at(window, planned.pieces_before + claimed)) return false;
    if (found == cache_.end()) {
      if (!make_room(ahead_)) return false;
      found = cache_.emplace(planned.index, new_block(planned.index)).first;
    }
    block = found->second;
    piece = block->claimed++;
    return true;
  }
  return false;
}

void Hdf5RowBlocks::decode_claimed(const BlockPtr& block, std::size_t piece,
                                   std::unique_lock<std::mutex>& lock) const {
  lock.unlock();
  std::exception_ptr error;
  try {
    matrix_.decode(block->pieces[piece], block->first, block->values.data(), file_mutex_);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error && !block->error) block->error = error;
  ++block->done;
  if (block->complete() || error) changed_.notify_all();
}

Hdf5RowBlocks::BlockPtr Hdf5RowBlocks::ready_block(std::int64_t index, std::int64_t rows) const {
  std::unique_lock<std::mutex> lock(mutex_);
  rows_read_ += rows;
  const std::int64_t place = planned_position(index);
  if (place >= 0) {
    Planned& planned = plan_[static_cast<std::size_t>(place)];
    const std::int64_t left = planned.rows_left;
    planned.rows_left -= std::min(left, rows);
    const bool further = place > reached_;
    reached_ = std::max(reached_, place);
    // The read-ahead thread may go a window further, or find room.
    if (read_ahead_ == ReadAhead::OnSpareCore && (further || (left > 0 && planned.rows_left == 0)))
      changed_.notify_all();
  }
  auto found = cache_.find(index);
  if (found == cache_.end()) {
    make_room(-1);  // when every block is being decoded, the cache holds one more for a moment
    found = cache_.emplace(index, new_block(index)).first;
  }
  const BlockPtr block = found->second;
  while (!block->complete() && !block->error) {
    if (block->claimed < block->pieces.size()) {
      decode_claimed(block, block->claimed++, lock);
    } else {
      changed_.wait(lock);
    }
  }
  if (block->error) std::rethrow_exception(block->error);
  // This reader's share of the read-ahead: the pieces due by now.
  if (read_ahead_ == ReadAhead::ByReaders) {
    BlockPtr ahead;
    std::size_t piece = 0;
    while (claim_ahead(/*paced=*/true, ahead, piece)) decode_claimed(ahead, piece, lock);
  }
  return block;
}

void Hdf5RowBlocks::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  const auto row_values = static_cast<std::size_t>(column_count());
  for (std::size_t i = 0; i < count;) {
    TOPKFS_ASSERT(rows[i] >= 0 && rows[i] < row_count());
    const std::int64_t index = rows[i] / block_rows_;
    std::size_t end = i + 1;
    while (end < count && rows[end] / block_rows_ == index) ++end;
    // Held while its rows are copied: a block the cache lets go of meanwhile
    // is freed after.
    const BlockPtr block = ready_block(index, static_cast<std::int64_t>(end - i));
    for (; i < end; ++i) {
      TOPKFS_ASSERT(rows[i] >= block->first && rows[i] < row_count());
      const float* from =
          block->values.data() + static_cast<std::size_t>(rows[i] - block->first) * row_values;
      std::copy(from, from + row_values, out + i * row_values);
    }
  }
}

void Hdf5RowBlocks::plan_pass(const std::vector<std::int64_t>& rows, ReadAhead read_ahead) const {
  std::unique_lock<std::mutex> lock(mutex_);
  plan_.clear();
  place_.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t index = rows[i] / block_rows_;
    const auto found = place_.emplace(index, static_cast<std::int64_t>(plan_.size()));
    if (found.second) plan_.push_back({index, static_cast<std::int64_t>(i), 0, 0, 0});
    plan_[static_cast<std::size_t>(found.first->second)].rows_left += 1;
  }
  for (std::size_t place = 0; place < plan_.size(); ++place) {
    Planned& planned = plan_[place];
    planned.pieces = static_cast<std::int64_t>(
        matrix_.pieces(block_first(planned.index), block_count(planned.index)).size());
    if (place % static_cast<std::size_t>(window_blocks_) != 0) {
      const Planned& before = plan_[place - 1];
      planned.pieces_before = before.pieces_before + before.pieces;
    }
  }
  read_ahead_ = read_ahead;
  rows_read_ = 0;
  reached_ = -1;
  ahead_ = 0;
  if (read_ahead == ReadAhead::OnSpareCore && !reader_.joinable()) {
    reader_ = std::thread([this] { read_ahead_loop(); });
  }
  lock.unlock();
  changed_.notify_all();
}

void Hdf5RowBlocks::read_ahead_loop() const {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    BlockPtr block;
    std::size_t piece = 0;
    changed_.wait(lock, [&] {
      return stopping_ ||
             (read_ahead_ == ReadAhead::OnSpareCore && claim_ahead(/*paced=*/false, block, piece));
    });
    if (stopping_) return;
    decode_claimed(block, piece, lock);
  }
}

}  // namespace topkfs::detail
