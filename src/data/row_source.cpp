#include "topkfs/data/row_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs {

constexpr EnumName<RowStorage> kStorageNames[] = {{RowStorage::InMemory, "in memory"},
                                                  {RowStorage::Mapped, "mapped"},
                                                  {RowStorage::RowBlocks, "row blocks"}};

const char* to_string(RowStorage storage) { return enum_name(storage, kStorageNames); }

std::int64_t RowSource::pass_block_rows() const {
  return std::max<std::int64_t>(
      1, (std::int64_t{1} << 20) / std::max<std::int64_t>(1, column_count()));
}

void RowSource::for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                               const RowBlockVisitor& visit) const {
  const std::int64_t step = std::max<std::int64_t>(1, block_rows);
  std::vector<std::int64_t> indices;
  std::vector<float> buffer;
  for (std::int64_t begin = first; begin < last; begin += step) {
    const std::int64_t count = std::min(step, last - begin);
    indices.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) indices[static_cast<std::size_t>(i)] = begin + i;
    buffer.resize(static_cast<std::size_t>(count * column_count()));
    copy_rows(indices.data(), indices.size(), buffer.data());
    visit(begin, count, buffer.data());
  }
}

void order_by_windows(std::vector<std::int64_t>& rows, const ReadingWindow& window) {
  if (window.block_rows <= 0 || rows.empty()) return;
  const std::int64_t per_window = std::max<std::int64_t>(1, window.window_blocks);
  // Each row's window: its block's place in the order of first appearance,
  // divided by the blocks a window holds.
  std::unordered_map<std::int64_t, std::int64_t> place;
  std::vector<std::int64_t> windows(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto found =
        place.emplace(rows[i] / window.block_rows, static_cast<std::int64_t>(place.size()));
    windows[i] = found.first->second / per_window;
  }
  if (static_cast<std::int64_t>(place.size()) <= per_window) return;
  // A stable counting sort by window.
  const std::size_t count = static_cast<std::size_t>(
      (static_cast<std::int64_t>(place.size()) + per_window - 1) / per_window);
  std::vector<std::size_t> starts(count + 1, 0);
  for (const auto w : windows) starts[static_cast<std::size_t>(w) + 1] += 1;
  for (std::size_t w = 1; w <= count; ++w) starts[w] += starts[w - 1];
  std::vector<std::int64_t> ordered(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ordered[starts[static_cast<std::size_t>(windows[i])]++] = rows[i];
  }
  rows = std::move(ordered);
}

RowRange::RowRange(const RowSource& source, std::int64_t first, std::int64_t last)
    : source_(source), first_(first), last_(last) {
  if (first < 0 || first > last || last > source.row_count()) {
    throw OptionError(fmt::format("row range [{}, {}) is not within the {} rows of the data", first,
                                  last, source.row_count()));
  }
}

void RowRange::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  std::vector<std::int64_t> shifted(rows, rows + count);
  for (auto& row : shifted) row += first_;
  source_.copy_rows(shifted.data(), count, out);
}

void RowRange::for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                              const RowBlockVisitor& visit) const {
  source_.for_each_block(first + first_, last + first_, block_rows,
                         [&](std::int64_t begin, std::int64_t count, const float* rows) {
                           visit(begin - first_, count, rows);
                         });
}

void for_each_gathered_block(const RowSource& source, std::vector<std::int64_t> rows,
                             std::int64_t block_rows,
                             const std::function<void(std::int64_t, const float*)>& visit) {
  std::sort(rows.begin(), rows.end());
  const auto step = static_cast<std::size_t>(std::max<std::int64_t>(1, block_rows));
  std::vector<float> buffer;
  for (std::size_t begin = 0; begin < rows.size(); begin += step) {
    const std::size_t count = std::min(step, rows.size() - begin);
    buffer.resize(count * static_cast<std::size_t>(source.column_count()));
    source.copy_rows(rows.data() + begin, count, buffer.data());
    visit(static_cast<std::int64_t>(count), buffer.data());
  }
}

void RowPasses::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  const std::int64_t m = cols_;
  std::size_t i = 0;
  while (i < count) {
    std::size_t end = i + 1;
    while (end < count && rows[end] == rows[end - 1] + 1) ++end;
    float* to = out + static_cast<std::int64_t>(i) * m;
    for_each_block(rows[i], rows[end - 1] + 1, static_cast<std::int64_t>(end - i),
                   [&](std::int64_t, std::int64_t n, const float* values) {
                     to = std::copy_n(values, n * m, to);
                   });
    i = end;
  }
}

}  // namespace topkfs
