#include "hdf5_row_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "hdf5_chunked_reads.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::detail {

Hdf5RowBlocks::Hdf5RowBlocks(const std::string& path, const std::vector<std::string>& parts,
                             std::int64_t cols, std::uint64_t cache_bytes)
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
  // Blocks are aligned to the first part's chunks (the parts of one file are
  // written alike); a block that crosses into the next part is read in two
  // runs.
  const std::int64_t row_bytes = std::max<std::int64_t>(1, cols_) * 4;
  const std::uint64_t chunk_rows =
      parts_.empty() ? 0 : hdf5::dataset_chunk_rows(parts_.front().dataset.get());
  constexpr std::int64_t kUnchunkedBlockBytes = 1 << 20;
  block_rows_ = chunk_rows > 0 ? static_cast<std::int64_t>(chunk_rows)
                               : std::max<std::int64_t>(1, kUnchunkedBlockBytes / row_bytes);
  block_rows_ = std::max<std::int64_t>(1, std::min(block_rows_, std::max<std::int64_t>(1, rows_)));
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

std::vector<float> Hdf5RowBlocks::read_block(std::int64_t index) const {
  const std::int64_t first = index * block_rows_;
  const std::int64_t count = std::min(block_rows_, rows_ - first);
  std::vector<float> values(static_cast<std::size_t>(count * cols_));
  const std::lock_guard<std::mutex> lock(file_mutex_);
  for (std::int64_t row = first; row < first + count;) {
    const auto part = std::find_if(parts_.begin(), parts_.end(), [&](const Part& p) {
      return row >= p.first && row < p.first + p.rows;
    });
    TOPKFS_ASSERT(part != parts_.end());
    const std::int64_t run = std::min(first + count, part->first + part->rows) - row;
    read_run(*part, row, run, values.data() + static_cast<std::size_t>((row - first) * cols_));
    row += run;
  }
  return values;
}

std::int64_t Hdf5RowBlocks::planned_position(std::int64_t index) const {
  const auto found = place_.find(index);
  return found == place_.end() ? -1 : found->second;
}

bool Hdf5RowBlocks::make_room(std::int64_t place) const {
  if (static_cast<std::int64_t>(cache_.size()) < cache_blocks_) return true;
  // The block needed furthest ahead goes (Belady's rule): a block this pass
  // has read past or does not read at all first, else the latest planned,
  // unless that is needed sooner than `place` (-1: now, by the reader).
  const auto next_use = [&](std::int64_t index) {
    const std::int64_t at = planned_position(index);
    return at < 0 || at < reached_ ? std::numeric_limits<std::int64_t>::max() : at;
  };
  auto victim = cache_.end();
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (victim == cache_.end() || next_use(it->first) > next_use(victim->first)) victim = it;
  }
  if (victim == cache_.end() || (place >= 0 && next_use(victim->first) <= place)) return false;
  cache_.erase(victim);
  return true;
}

const std::vector<float>& Hdf5RowBlocks::block(std::int64_t index,
                                               std::unique_lock<std::mutex>& lock) const {
  const std::int64_t place = planned_position(index);
  if (place > reached_) {
    reached_ = place;
    changed_.notify_all();  // the read-ahead thread may go a block further
  }
  changed_.wait(lock, [&] { return loading_ != index; });
  auto hit = cache_.find(index);
  if (hit != cache_.end()) return hit->second;
  lock.unlock();
  std::vector<float> values = read_block(index);
  lock.lock();
  hit = cache_.find(index);  // the read-ahead thread may have read it meanwhile
  if (hit != cache_.end()) return hit->second;
  make_room(-1);
  return cache_.emplace(index, std::move(values)).first->second;
}

void Hdf5RowBlocks::plan_pass(const std::vector<std::int64_t>& rows) const {
  std::unique_lock<std::mutex> lock(mutex_);
  plan_.clear();
  place_.clear();
  for (const std::int64_t row : rows) {
    if (place_.emplace(row / block_rows_, static_cast<std::int64_t>(plan_.size())).second) {
      plan_.push_back(row / block_rows_);
    }
  }
  reached_ = -1;
  next_ = 0;
  if (!reader_.joinable()) reader_ = std::thread([this] { read_ahead(); });
  lock.unlock();
  changed_.notify_all();
}

void Hdf5RowBlocks::read_ahead() const {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // At most a window beyond the reader's window, so that the cache holds
    // both and drops only blocks already read.
    const auto may_read = [&] {
      const std::int64_t reader_window = std::max<std::int64_t>(0, reached_) / window_blocks_;
      return next_ < static_cast<std::int64_t>(plan_.size()) &&
             next_ / window_blocks_ <= reader_window + 1;
    };
    changed_.wait(lock, [&] { return stopping_ || may_read(); });
    if (stopping_) return;
    const std::int64_t place = next_++;
    const std::int64_t index = plan_[static_cast<std::size_t>(place)];
    // Not a block the reader has passed, nor one that would push out a
    // block needed sooner.
    if (place < reached_ || cache_.count(index) != 0 || !make_room(place)) continue;
    loading_ = index;
    lock.unlock();
    std::vector<float> values;
    bool read = true;
    try {
      values = read_block(index);
    } catch (...) {
      read = false;  // the reader reads it again and reports the error
    }
    lock.lock();
    loading_ = -1;
    if (read && cache_.count(index) == 0 && make_room(place))
      cache_.emplace(index, std::move(values));
    changed_.notify_all();
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
  std::unique_lock<std::mutex> lock(mutex_);
  const auto row_values = static_cast<std::size_t>(cols_);
  for (std::size_t i = 0; i < count; ++i) {
    TOPKFS_ASSERT(rows[i] >= 0 && rows[i] < rows_);
    const std::vector<float>& values = block(rows[i] / block_rows_, lock);
    const float* from =
        values.data() + static_cast<std::size_t>(rows[i] % block_rows_) * row_values;
    std::copy(from, from + row_values, out + i * row_values);
  }
}

}  // namespace topkfs::detail
