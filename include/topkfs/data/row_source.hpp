#pragma once
// RowSource: where a method reads the rows of a feature matrix from, when it
// does not need the whole matrix at once. The in-memory matrix implements it
// (FeatureMatrix), and so does a matrix mapped from a file; a data-parallel
// run gives each process a RowRange of the same source. What a source must
// do is small on purpose: its shape, "copy these rows into this buffer", and
// "visit these rows in blocks".
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace topkfs {

// Where the rows are: read into memory, mapped from a file (the page cache
// holds them; they cost no anonymous memory), or read from a file by row
// blocks on demand.
enum class RowStorage { InMemory, Mapped, RowBlocks };

// "in memory", "mapped", "row blocks"
const char* to_string(RowStorage storage);

// Rows first .. first + count - 1, row-major, valid during the call only.
using RowBlockVisitor =
    std::function<void(std::int64_t first, std::int64_t count, const float* rows)>;

// How a source read by row blocks is read fastest: in blocks of `block_rows`
// rows aligned to the file's chunks, at most `window_blocks` blocks at a time
// (what the source keeps decompressed). Zero rows: any order costs the same.
struct ReadingWindow {
  std::int64_t block_rows = 0;
  std::int64_t window_blocks = 0;
};

// Who reads a planned pass's blocks ahead of the rows being read: a thread
// of the source's own, when a core is free for it; otherwise the threads
// that read the rows share that work among themselves as they read, so
// that none waits alone while another decompresses.
enum class ReadAhead { OnSpareCore, ByReaders };

class RowSource {
 public:
  virtual ~RowSource() = default;

  virtual std::int64_t row_count() const = 0;
  virtual std::int64_t column_count() const = 0;
  virtual RowStorage storage() const = 0;

  // Copies rows rows[0] .. rows[count - 1] (any order, repeats allowed) into
  // `out`, count x column_count() floats, row-major. Indices must be in
  // range (checked by the caller).
  virtual void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const = 0;

  // Visits rows [first, last) in order, in blocks of at most `block_rows`
  // rows. The default copies each block into a buffer through copy_rows;
  // a source whose rows lie contiguously in memory lends them directly.
  virtual void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                              const RowBlockVisitor& visit) const;
  // The block_rows of a pass over every row: about a million values (4 MB
  // of float32) a block, at least one row.
  std::int64_t pass_block_rows() const;

  virtual ReadingWindow reading_window() const { return {}; }
  // The next pass will read `rows` in this order (a hint: a source may read
  // ahead; the rows are still read through copy_rows, from any thread).
  // `read_ahead` says who may do that work.
  virtual void plan_pass(const std::vector<std::int64_t>& /*rows*/,
                         ReadAhead /*read_ahead*/) const {}
};

// Reorders shuffled `rows` so that a pass reads at most `window.window_blocks`
// blocks at a time, each once: the blocks in the order of their first row in
// `rows` (so in random order when `rows` is shuffled), taken in windows of
// that many blocks, the rows of each window in their order in `rows` (random
// within the window). A shuffle buffer over the file's blocks, as tf.data's;
// `rows` is unchanged when the window has no block size or holds every
// block.
void order_by_windows(std::vector<std::int64_t>& rows, const ReadingWindow& window);

// Rows [first, last) of another source, renumbered from 0 (a process's share
// of the rows in a data-parallel run). The source must outlive the range.
class RowRange : public RowSource {
 public:
  // Throws OptionError unless 0 <= first <= last <= source.row_count().
  RowRange(const RowSource& source, std::int64_t first, std::int64_t last);

  std::int64_t row_count() const override { return last_ - first_; }
  std::int64_t column_count() const override { return source_.column_count(); }
  RowStorage storage() const override { return source_.storage(); }
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override;

 private:
  const RowSource& source_;
  std::int64_t first_;
  std::int64_t last_;
};

// Visits the rows `rows` (any order) in ascending row order, in blocks of at
// most `block_rows` gathered rows: one sequential pass over a file-backed
// source. `visit` gets the block's rows (count x columns) and the count.
void for_each_gathered_block(
    const RowSource& source, std::vector<std::int64_t> rows, std::int64_t block_rows,
    const std::function<void(std::int64_t count, const float* rows)>& visit);

// A source whose rows are read in passes over a file (for_each_block, which
// a subclass gives) rather than by index, never held whole: the IDX, CSV
// and LIBSVM readers of `topkfs convert`. copy_rows makes one pass per run
// of consecutive indices, so rows in order cost one pass and rows out of
// order one pass each.
class RowPasses : public RowSource {
 public:
  RowPasses(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {}

  std::int64_t row_count() const override { return rows_; }
  std::int64_t column_count() const override { return cols_; }
  RowStorage storage() const override { return RowStorage::RowBlocks; }
  void copy_rows(const std::int64_t* rows, std::size_t count, float* out) const override;
  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override = 0;

 private:
  std::int64_t rows_;
  std::int64_t cols_;
};

}  // namespace topkfs
