#include "text_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/data/table_encoding.hpp"

namespace topkfs::detail {
namespace {

constexpr std::uint32_t kQuietNan = 0x7FC00000u;
constexpr std::uint32_t kPayload = 0x003FFFFFu;

std::uint32_t bits_of(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The number a level's text reads as, when it is one.
bool level_number(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

// Natural order of levels: numbers by value, before text in byte order.
bool level_before(const std::string& a, const std::string& b) {
  double x = 0;
  double y = 0;
  const bool a_number = level_number(a, x);
  const bool b_number = level_number(b, y);
  if (a_number != b_number) return a_number;
  if (a_number && x != y) return x < y;
  return a < b;
}

}  // namespace

const std::vector<std::string>& builtin_missing_markers() {
  static const std::vector<std::string> markers = {"",     "NA",  "N/A", "n/a", "null",
                                                   "NULL", "nan", "NaN", "NAN", "?"};
  return markers;
}

MissingMarkers::MissingMarkers(std::vector<std::string> extra) : extra_(std::move(extra)) {
  for (const auto& marker : extra_) {
    double value = 0;
    const char* begin = marker.data() + (!marker.empty() && marker[0] == '+' ? 1 : 0);
    const char* end = marker.data() + marker.size();
    const auto result = std::from_chars(begin, end, value);
    has_numbers_ = has_numbers_ || (begin != end && result.ptr == end);
  }
}

bool MissingMarkers::operator()(std::string_view text) const {
  const auto& builtin = builtin_missing_markers();
  return std::find(builtin.begin(), builtin.end(), text) != builtin.end() ||
         std::find(extra_.begin(), extra_.end(), text) != extra_.end();
}

float text_cell(std::uint32_t code) {
  TOPKFS_ASSERT(code <= kMaxTextCode);
  const std::uint32_t bits = kQuietNan | (code + 1);
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::int64_t text_code(float value) {
  if (value == value) return -1;
  const std::uint32_t payload = bits_of(value) & kPayload;
  return payload == 0 ? -1 : static_cast<std::int64_t>(payload) - 1;
}

float TextColumns::add(std::int64_t feature, std::string text, std::int64_t line,
                       const std::string& path, const std::string& column_name) {
  Column& column = columns_[static_cast<std::size_t>(feature)];
  if (column.cells++ == 0) {
    column.first_line = line;
    column.first_text = text;
  }
  const auto found = column.codes.find(text);
  if (found != column.codes.end()) return text_cell(found->second);
  const auto code = static_cast<std::uint32_t>(column.levels.size());
  if (code > kMaxTextCode) {
    throw DataError(fmt::format(
        "{}: line {}: column '{}' holds more than {} distinct texts; a categorical column has at "
        "most --max-levels levels",
        path, line, column_name, kMaxTextCode + 1));
  }
  column.levels.push_back(text);
  column.codes.emplace(std::move(text), code);
  return text_cell(code);
}

void finish_text_columns(Dataset& data, const TextColumns& text, const ColumnKinds& kinds,
                         int max_levels, const std::string& path) {
  const std::int64_t n = data.rows();
  const std::int64_t m = data.cols();
  for (std::int64_t j = 0; j < m; ++j) {
    const auto& column = text.column(j);
    const bool forced =
        !kinds.categorical.empty() && kinds.categorical[static_cast<std::size_t>(j)];
    if (column.cells == 0 && !forced) continue;
    // Every distinct cell as a level's text, with the rows' old codes mapped
    // onto it: text codes from the parse, numbers by their value.
    std::vector<std::string> names = column.levels;
    std::map<float, std::uint32_t> number_codes;
    std::int64_t numbers = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = data.features(i, j);
      if (v != v) continue;
      ++numbers;
      if (number_codes.emplace(v, 0).second) {
        number_codes[v] = static_cast<std::uint32_t>(names.size());
        names.push_back(number_level_name(v));
      }
    }
    // Merge texts that name the same level ("1" read as a number and as a
    // quoted text cannot both occur, but "01" and "1" do): first name wins.
    std::vector<std::size_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return level_before(names[a], names[b]);
    });
    std::vector<std::uint32_t> final_code(names.size());
    std::vector<std::string> levels;
    for (std::size_t r = 0; r < order.size(); ++r) {
      if (levels.empty() || levels.back() != names[order[r]]) levels.push_back(names[order[r]]);
      final_code[order[r]] = static_cast<std::uint32_t>(levels.size() - 1);
    }
    if (static_cast<std::int64_t>(levels.size()) > max_levels) {
      throw DataError(fmt::format(
          "{}: column '{}' has {} levels, more than --max-levels {} allows; a column of {} "
          "distinct texts is an identifier rather than a category: leave it out of the file, or "
          "raise --max-levels",
          path, data.feature_names[static_cast<std::size_t>(j)], levels.size(), max_levels,
          levels.size()));
    }
    for (std::int64_t i = 0; i < n; ++i) {
      float& v = data.features(i, j);
      if (v == v) {
        v = static_cast<float>(final_code[number_codes.at(v)]);
      } else if (const std::int64_t code = text_code(v); code >= 0) {
        v = static_cast<float>(final_code[static_cast<std::size_t>(code)]);
      }
    }
    if (data.column_levels.empty()) data.column_levels.resize(static_cast<std::size_t>(m));
    data.column_levels[static_cast<std::size_t>(j)] = std::move(levels);
    if (numbers > 0 && column.cells > 0) {
      data.notes.push_back(fmt::format(
          "column '{}' mixes numbers ({} cells) and text ({} cells, the first '{}' on line {}): "
          "read as categorical with {} levels (--numeric {} refuses its text instead)",
          data.feature_names[static_cast<std::size_t>(j)], numbers, column.cells,
          column.first_text.substr(0, 40), column.first_line,
          data.column_levels[static_cast<std::size_t>(j)].size(),
          data.feature_names[static_cast<std::size_t>(j)]));
    }
  }
}

}  // namespace topkfs::detail
