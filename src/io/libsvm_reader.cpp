// LIBSVM / svmlight reader: lines "label index:value index:value ... # comment"
// with 1-based feature indices and an optional "qid:N" (query id, ignored
// with a note), read into the dense float32 matrix every method works on.
// The number of features is the largest index seen; absent entries are 0.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mapped_file.hpp"
#include "memory_budget.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/io/file_util.hpp"
#include "topkfs/io/readers.hpp"
#include "topkfs/io/target_encoding.hpp"

namespace topkfs {
namespace {

// Dense matrices above this many entries (8 GiB of float32) are refused:
// one stray huge index must not make us allocate the machine away.
constexpr std::int64_t kMaxDenseEntries = std::int64_t{1} << 31;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The next blank-separated token of [p, end), moving p past it; empty at the end.
std::string_view next_token(const char*& p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  const char* start = p;
  while (p < end && !is_blank(*p)) ++p;
  return std::string_view(start, static_cast<std::size_t>(p - start));
}

enum class ValueRead { Number, NotANumber, BeyondFloat };

// A whole token as a float; "+1.5", "nan", "inf" allowed (check_values deals
// with the last two). A finite value beyond float range is not infinite:
// BeyondFloat, for the caller to refuse.
ValueRead parse_value(std::string_view text, float& value) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin < end && *begin == '+') ++begin;
  const auto result = std::from_chars(begin, end, value);
  if (begin == end || result.ptr != end) return ValueRead::NotANumber;
  if (result.ec == std::errc::result_out_of_range) {
    const double wide = std::strtod(std::string(begin, end).c_str(), nullptr);
    if (std::fabs(wide) > std::numeric_limits<float>::max()) return ValueRead::BeyondFloat;
    value = static_cast<float>(wide);  // below float's smallest: 0 or a subnormal
    return ValueRead::Number;
  }
  return result.ec == std::errc() ? ValueRead::Number : ValueRead::NotANumber;
}

bool parse_integer(std::string_view text, std::int64_t& value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

struct SparseRows {
  std::vector<std::string> labels;
  std::vector<std::size_t> row_start;                   // into entries; one more than rows
  std::vector<std::pair<std::int64_t, float>> entries;  // (0-based column, value)
  std::int64_t columns = 0;
  std::int64_t qid_lines = 0;
};

class LineParser {
 public:
  LineParser(const std::string& path, SparseRows& rows) : path_(path), rows_(rows) {}

  // One line without its '\n'.
  void parse(const char* p, const char* end, std::int64_t line) {
    if (const void* hash = std::memchr(p, '#', static_cast<std::size_t>(end - p))) {
      end = static_cast<const char*>(hash);
    }
    const std::string_view label = next_token(p, end);
    if (label.empty()) return;  // blank or comment-only line
    check_label(label, line);
    rows_.labels.emplace_back(label);
    bool has_qid = false;
    for (std::string_view token = next_token(p, end); !token.empty(); token = next_token(p, end)) {
      has_qid |= entry(token, line);
    }
    rows_.qid_lines += has_qid ? 1 : 0;
    rows_.row_start.push_back(rows_.entries.size());
  }

 private:
  void check_label(std::string_view label, std::int64_t line) const {
    if (label.find(':') != std::string_view::npos) {
      throw DataError(fmt::format(
          "{}: line {}: the line starts with '{}', expected a label before the index:value pairs",
          path_, line, label));
    }
    if (label.find(',') != std::string_view::npos) {
      throw DataError(
          fmt::format("{}: line {}: '{}' is a multi-label target; topkfs reads one label per line",
                      path_, line, label));
    }
  }

  // Stores one index:value pair; true when the token was a query id instead.
  bool entry(std::string_view token, std::int64_t line) {
    const auto colon = token.find(':');
    if (colon == std::string_view::npos) {
      throw DataError(
          fmt::format("{}: line {}: '{}' is not an index:value pair", path_, line, token));
    }
    const std::string_view key = token.substr(0, colon);
    const std::string_view text = token.substr(colon + 1);
    std::int64_t index = 0;
    if (key == "qid") {
      if (!parse_integer(text, index)) {
        throw DataError(
            fmt::format("{}: line {}: query id '{}' is not an integer", path_, line, text));
      }
      return true;
    }
    if (!parse_integer(key, index) || index < 1) {
      throw DataError(fmt::format(
          "{}: line {}: feature index '{}' in '{}' is not an integer from 1 up (LIBSVM numbers "
          "features from 1)",
          path_, line, key, token));
    }
    float value = 0;
    const ValueRead read = parse_value(text, value);
    if (read == ValueRead::NotANumber) {
      throw DataError(fmt::format("{}: line {}: the value '{}' of feature {} is not a number",
                                  path_, line, text, index));
    }
    if (read == ValueRead::BeyondFloat) {
      throw DataError(fmt::format(
          "{}: line {}: the value {} of feature {} is beyond float32's range (+-3.4e38), in "
          "which features are held; rescale the feature",
          path_, line, text, index));
    }
    check_new_index(index - 1, line, token);
    rows_.entries.emplace_back(index - 1, value);
    rows_.columns = std::max(rows_.columns, index);
    return false;
  }

  // An index given twice on a line would keep one of its values silently.
  // Lines list their indices in increasing order as a rule: the line's
  // entries are scanned only once one has not come after the one before.
  void check_new_index(std::int64_t column, std::int64_t line, std::string_view token) {
    const std::size_t begin = rows_.row_start.back();
    if (rows_.entries.size() == begin) {  // the line's first
      line_ascending_ = true;
      return;
    }
    if (line_ascending_ && rows_.entries.back().first < column) return;
    line_ascending_ = false;
    for (std::size_t e = begin; e < rows_.entries.size(); ++e) {
      if (rows_.entries[e].first != column) continue;
      throw DataError(fmt::format(
          "{}: line {}: feature index {} is given twice ('{}' after '{}:{}'); each index holds "
          "one value",
          path_, line, column + 1, token, column + 1, rows_.entries[e].second));
    }
  }

  const std::string& path_;
  SparseRows& rows_;
  bool line_ascending_ = true;  // the current line's indices so far
};

// Parses the lines of `text` into `rows`, calling after_line() after each.
template <typename AfterLine>
void parse_each_line(std::string_view text, const std::string& path, SparseRows& rows,
                     AfterLine&& after_line) {
  rows.row_start.push_back(0);
  LineParser parser(path, rows);
  const char* p = text.data();
  const char* end = p + text.size();
  for (std::int64_t line = 1; p < end; ++line) {
    const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* stop = newline ? static_cast<const char*>(newline) : end;
    parser.parse(p, stop, line);
    after_line();
    p = stop + (newline ? 1 : 0);
  }
}

SparseRows parse_lines(const std::string& text, const std::string& path) {
  SparseRows rows;
  parse_each_line(text, path, rows, [] {});
  return rows;
}

// After a line has been used: forget its label and entries, keep the counts.
void forget_lines(SparseRows& rows) {
  rows.labels.clear();
  rows.entries.clear();
  rows.row_start.assign(1, 0);
}

// The features of a LIBSVM file mapped into memory, parsed again on each
// pass by row blocks (RowSource), never held whole, dense or sparse: what
// `topkfs convert` reads a plain LIBSVM file with.
class LibsvmRowBlocks final : public RowPasses {
 public:
  LibsvmRowBlocks(std::shared_ptr<const detail::MappedFile> file, std::string path,
                  std::int64_t rows, std::int64_t columns)
      : RowPasses(rows, columns), file_(std::move(file)), path_(std::move(path)) {}

  void for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                      const RowBlockVisitor& visit) const override {
    const std::int64_t step = std::max<std::int64_t>(1, block_rows);
    const std::int64_t columns = column_count();
    std::vector<float> buffer(static_cast<std::size_t>(step * columns));
    std::int64_t row = 0;     // of the line just parsed
    std::int64_t filled = 0;  // rows in the buffer
    SparseRows scratch;
    const auto flush = [&] {
      if (filled > 0) visit(row - filled, filled, buffer.data());
      filled = 0;
    };
    parse_each_line(std::string_view(file_->data(), static_cast<std::size_t>(file_->size())), path_,
                    scratch, [&] {
                      if (scratch.labels.empty()) return;  // no label: not a row
                      if (row >= first && row < last) {
                        float* to = buffer.data() + filled * columns;
                        std::fill_n(to, columns, 0.0f);
                        for (const auto& [column, value] : scratch.entries) to[column] = value;
                        ++filled;
                      }
                      forget_lines(scratch);
                      ++row;
                      if (filled == step || row == last) flush();
                    });
    flush();
  }

 private:
  std::shared_ptr<const detail::MappedFile> file_;
  std::string path_;
};

void check_not_empty(std::int64_t rows, std::int64_t columns, const std::string& path) {
  if (rows == 0) throw DataError(fmt::format("{}: no data: no line holds a label", path));
  if (columns == 0) {
    throw DataError(fmt::format("{}: no feature values: no line holds an index:value pair", path));
  }
}

// Names f1..fm, the qid note and the target: what both readers finish with.
void finish_libsvm(Dataset& data, const SparseRows& rows, const std::vector<std::string>& labels,
                   const ReadOptions& options, const std::string& path) {
  data.source = path;
  data.format = "libsvm";
  data.feature_names.reserve(static_cast<std::size_t>(rows.columns));
  for (std::int64_t j = 1; j <= rows.columns; ++j)
    data.feature_names.push_back(fmt::format("f{}", j));
  if (rows.qid_lines > 0) {
    data.notes.push_back(fmt::format("query ids (qid:) on {} lines were ignored", rows.qid_lines));
  }
  set_target_from_text(data, labels, "y", options, path);
}

}  // namespace

Dataset read_libsvm_by_row_blocks(const std::string& path, const ReadOptions& options,
                                  std::shared_ptr<const RowSource>& rows) {
  auto file = std::make_shared<const detail::MappedFile>(path);
  // The first pass: the labels, the column count (the largest index) and
  // the first value that is not finite; the entries are let go line by line.
  SparseRows counts;
  std::vector<std::string> labels;
  std::optional<std::pair<std::int64_t, std::pair<std::int64_t, float>>> non_finite;
  // Under Impute a NaN is a missing cell that convert imputes; only an
  // infinite value is refused.
  const bool impute = options.nan == NanPolicy::Impute;
  bool missing = false;
  parse_each_line(
      std::string_view(file->data(), static_cast<std::size_t>(file->size())), path, counts, [&] {
        if (counts.labels.empty()) return;
        for (const auto& entry : counts.entries) {
          missing = missing || std::isnan(entry.second);
          const bool bad = impute ? std::isinf(entry.second) : !std::isfinite(entry.second);
          if (!non_finite && bad) {
            non_finite.emplace(static_cast<std::int64_t>(labels.size()), entry);
          }
        }
        labels.push_back(std::move(counts.labels.front()));
        forget_lines(counts);
      });
  const auto n = static_cast<std::int64_t>(labels.size());
  check_not_empty(n, counts.columns, path);
  detail::check_feature_shape(static_cast<std::uint64_t>(n),
                              static_cast<std::uint64_t>(counts.columns),
                              fmt::format("{} lines x {} features", n, counts.columns), path,
                              /*mapped=*/true);
  Dataset data;
  data.features.resize(n, 0);
  data.missing_cells_seen = missing;
  finish_libsvm(data, counts, labels, options, path);
  if (non_finite && (options.nan == NanPolicy::Error || options.nan == NanPolicy::Impute)) {
    refuse_feature_value(data, non_finite->first, non_finite->second.first,
                         non_finite->second.second, path);
  }
  if (data.rows() == n) {
    rows = std::make_shared<LibsvmRowBlocks>(std::move(file), path, n, counts.columns);
  }
  return data;
}

Dataset read_libsvm(const std::string& path, const ReadOptions& options) {
  const std::string text = read_text_maybe_gzip(path);
  const SparseRows rows = parse_lines(text, path);
  const auto n = static_cast<std::int64_t>(rows.labels.size());
  check_not_empty(n, rows.columns, path);
  if (rows.columns > kMaxDenseEntries / n) {
    throw DataError(fmt::format(
        "{}: {} samples x {} features (the largest index) would take {:.1f} GB as a dense "
        "float32 matrix; topkfs keeps data dense: remove the stray large indices or reduce the "
        "features first",
        path, n, rows.columns,
        4.0 * static_cast<double>(n) * static_cast<double>(rows.columns) / 1e9));
  }

  detail::check_feature_shape(static_cast<std::uint64_t>(n),
                              static_cast<std::uint64_t>(rows.columns),
                              fmt::format("{} lines x {} features", n, rows.columns), path);
  Dataset data;
  data.features.setZero(n, rows.columns);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t e = rows.row_start[static_cast<std::size_t>(i)];
         e < rows.row_start[static_cast<std::size_t>(i) + 1]; ++e) {
      data.features(i, rows.entries[e].first) = rows.entries[e].second;
    }
  }
  finish_libsvm(data, rows, rows.labels, options, path);
  return data;
}

}  // namespace topkfs
