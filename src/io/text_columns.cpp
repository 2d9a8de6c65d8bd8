#include "text_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/table_encoding.hpp"

namespace topkfs {

const std::vector<std::string>& builtin_missing_markers() {
  static const std::vector<std::string> markers = {
      "",         "NA",  "N/A",     "n/a",    "NaN",      "nan",     "-NaN",
      "-nan",     "NAN", "null",    "NULL",   "None",     "<NA>",    "#N/A",
      "#N/A N/A", "#NA", "-1.#IND", "1.#IND", "-1.#QNAN", "1.#QNAN", "?"};
  return markers;
}

}  // namespace topkfs

namespace topkfs::detail {
namespace {

constexpr std::uint32_t kQuietNanBits = 0x7FC00000u;
constexpr std::uint32_t kNanPayloadBits = 0x003FFFFFu;

std::uint32_t float_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The number a level's text reads as, when it is one.
bool level_as_number(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end && std::isfinite(value);
}

// Natural order of levels: numbers by value, before text in byte order.
bool level_ranks_before(const std::string& a, const std::string& b) {
  double x = 0;
  double y = 0;
  const bool a_number = level_as_number(a, x);
  const bool b_number = level_as_number(b, y);
  if (a_number != b_number) return a_number;
  if (a_number && x != y) return x < y;
  return a < b;
}

}  // namespace

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
  const std::uint32_t bits = kQuietNanBits | (code + 1);
  float value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::int64_t text_code(float value) {
  if (value == value) return -1;
  const std::uint32_t payload = float_bits(value) & kNanPayloadBits;
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
    throw DataError(
        fmt::format("{}: line {}: column '{}' holds more than {} distinct texts; a categorical "
                    "column has at most {} levels",
                    path, line, column_name, kMaxTextCode + 1, option_ref("max-levels")));
  }
  column.levels.push_back(text);
  column.codes.emplace(std::move(text), code);
  return text_cell(code);
}

void NumberSets::add_block(const float* values, std::int64_t rows, const std::vector<char>& which) {
  const std::size_t m = sets_.size();
  if (counts_.empty()) counts_.assign(m, 0);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      if (!which.empty() && !which[j]) continue;
      const float v = values[static_cast<std::size_t>(i) * m + j];
      if (v != v) continue;
      ++counts_[j];
      if (overflow_[j]) continue;
      auto& set = sets_[j];
      const auto at = std::lower_bound(set.begin(), set.end(), v);
      if (at != set.end() && *at == v) continue;
      if (set.size() > cap_) {
        overflow_[j] = 1;
        set.clear();
        set.shrink_to_fit();
        continue;
      }
      set.insert(at, v);
    }
  }
}

const std::vector<float>& NumberSets::numbers(std::int64_t feature) const {
  return sets_[static_cast<std::size_t>(feature)];
}

LevelPlan::LevelPlan(const TextColumns& text, const NumberSets& numbers, const ColumnKinds& kinds,
                     int max_levels, const std::vector<std::string>& names, const std::string& path,
                     std::vector<std::string>& notes)
    : columns_(names.size()) {
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto feature = static_cast<std::int64_t>(j);
    const auto& column = text.column(feature);
    const bool forced = !kinds.categorical.empty() && kinds.categorical[j];
    if (column.cells == 0 && !forced) continue;
    if (numbers.overflow(feature)) {
      throw DataError(fmt::format(
          "{}: column '{}' has more than {} levels (its numbers alone); a column of so many "
          "distinct values is an identifier rather than a category: leave it out of the file, or "
          "raise {}",
          path, names[j], option_ref("max-levels", max_levels), option_ref("max-levels")));
    }
    // Every distinct cell as a level's text: the parse's text codes first,
    // then the numbers.
    std::vector<std::string> texts = column.levels;
    for (float v : numbers.numbers(feature)) texts.push_back(number_level_name(v));
    std::vector<std::size_t> order(texts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return level_ranks_before(texts[a], texts[b]);
    });
    std::vector<float> final_code(texts.size());
    Column& plan = columns_[j];
    for (std::size_t r = 0; r < order.size(); ++r) {
      // Texts that name the same level ("01" and "1" both print as "1")
      // merge: the first name wins.
      if (plan.levels.empty() || plan.levels.back() != texts[order[r]]) {
        plan.levels.push_back(texts[order[r]]);
      }
      final_code[order[r]] = static_cast<float>(plan.levels.size() - 1);
    }
    if (static_cast<std::int64_t>(plan.levels.size()) > max_levels) {
      throw DataError(fmt::format(
          "{}: column '{}' has {} levels, more than {} allows; a column of {} distinct texts is an "
          "identifier rather than a category: leave it out of the file, or raise {}",
          path, names[j], plan.levels.size(), option_ref("max-levels", max_levels),
          plan.levels.size(), option_ref("max-levels")));
    }
    const std::size_t text_levels = column.levels.size();
    plan.of_text.assign(final_code.begin(),
                        final_code.begin() + static_cast<std::ptrdiff_t>(text_levels));
    const auto& values = numbers.numbers(feature);
    for (std::size_t v = 0; v < values.size(); ++v) {
      plan.of_number.emplace_back(values[v], final_code[text_levels + v]);
    }
    any_ = true;
    const std::int64_t number_cells = numbers.cells(feature);
    if (number_cells > 0 && column.cells > 0) {
      notes.push_back(
          fmt::format("column '{}' mixes numbers ({} cells) and text ({} cells, the first '{}' on "
                      "line {}): read as categorical with {} levels ({} refuses its text instead)",
                      names[j], number_cells, column.cells, column.first_text.substr(0, 40),
                      column.first_line, plan.levels.size(), option_ref("numeric", names[j])));
    }
  }
}

void LevelPlan::apply(float* values, std::int64_t rows) const {
  const std::size_t m = columns_.size();
  for (std::size_t j = 0; j < m; ++j) {
    const Column& plan = columns_[j];
    if (plan.levels.empty()) continue;
    for (std::int64_t i = 0; i < rows; ++i) {
      float& v = values[static_cast<std::size_t>(i) * m + j];
      if (v == v) {
        const auto at = std::lower_bound(
            plan.of_number.begin(), plan.of_number.end(), v,
            [](const std::pair<float, float>& entry, float x) { return entry.first < x; });
        TOPKFS_ASSERT(at != plan.of_number.end() && at->first == v);
        v = at->second;
      } else if (const std::int64_t code = text_code(v); code >= 0) {
        v = plan.of_text[static_cast<std::size_t>(code)];
      }
    }
  }
}

std::vector<std::vector<std::string>> LevelPlan::column_levels() const {
  std::vector<std::vector<std::string>> out;
  if (!any_) return out;
  for (const auto& column : columns_) out.push_back(column.levels);
  return out;
}

void finish_text_columns(Dataset& data, const TextColumns& text, const ColumnKinds& kinds,
                         int max_levels, const std::string& path) {
  // The whole matrix is here: every number of the file is seen (the cap
  // only ends the count of a column that can have no more levels).
  std::vector<char> categorical(static_cast<std::size_t>(data.cols()), 0);
  bool any = false;
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    const bool forced =
        !kinds.categorical.empty() && kinds.categorical[static_cast<std::size_t>(j)];
    categorical[static_cast<std::size_t>(j)] = forced || text.column(j).cells > 0;
    any = any || categorical[static_cast<std::size_t>(j)];
  }
  if (!any) return;  // every column numeric: nothing to look at again
  NumberSets numbers(data.cols(), max_levels);
  numbers.add_block(data.features.data(), data.rows(), categorical);
  const LevelPlan plan(text, numbers, kinds, max_levels, data.feature_names, path, data.notes);
  if (!plan.any()) return;
  plan.apply(data.features.data(), data.rows());
  data.column_levels = plan.column_levels();
}

}  // namespace topkfs::detail
