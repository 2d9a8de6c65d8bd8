#pragma once
// Text in the feature columns of a delimited file: the missing-value markers
// and the levels of categorical columns (docs/data-preparation.md,
// "Mixed-type tables").
//
// While the rows are parsed, a text cell is stored in the float32 feature
// matrix as a NaN whose payload is its column's level code plus one (a
// missing cell is the payload-free NaN), so the one pass over the file
// needs no second matrix; finish_text_columns then turns every categorical
// column into level indices, NaN where missing. Numbers parsed as NaN are
// made payload-free first, so no cell of the file can pass for a code.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/io/read_options.hpp"

namespace topkfs::detail {

// The cells that mean "no value": empty, NA, N/A, n/a, null, NULL, nan, NaN,
// NAN and ? (pandas' defaults and UCI's "?"), plus the caller's own.
class MissingMarkers {
 public:
  MissingMarkers() = default;
  explicit MissingMarkers(std::vector<std::string> extra);
  bool operator()(std::string_view text) const;
  // True when one of the caller's markers reads as a number ("-999"): then
  // number cells must be compared with them too.
  bool has_numbers() const { return has_numbers_; }

 private:
  std::vector<std::string> extra_;
  bool has_numbers_ = false;
};

// The largest level code a text cell can carry in its NaN payload.
constexpr std::uint32_t kMaxTextCode = (1u << 22) - 2;

// A NaN that stands for level `code` of its column.
float text_cell(std::uint32_t code);
// The level code of a value made by text_cell, or -1 for any other value
// (numbers, the plain NaN of a missing cell).
std::int64_t text_code(float value);
// `value` with a NaN made payload-free.
inline float plain(float value) { return value != value ? __builtin_nanf("") : value; }

// The text levels of the feature columns met so far, by feature index.
class TextColumns {
 public:
  struct Column {
    std::unordered_map<std::string, std::uint32_t> codes;
    std::vector<std::string> levels;  // by code, in order of first appearance
    std::int64_t cells = 0;           // text cells
    std::int64_t first_line = 0;      // of the first text cell
    std::string first_text;
  };

  explicit TextColumns(std::int64_t features) : columns_(static_cast<std::size_t>(features)) {}

  // The cell value for text `text` at `line` of feature `feature`. Throws
  // DataError (naming `path` and the column) past kMaxTextCode levels.
  float add(std::int64_t feature, std::string text, std::int64_t line, const std::string& path,
            const std::string& column_name);

  const Column& column(std::int64_t feature) const {
    return columns_[static_cast<std::size_t>(feature)];
  }

 private:
  std::vector<Column> columns_;
};

// Which feature columns the caller forced one way (--categorical, --numeric).
struct ColumnKinds {
  std::vector<char> categorical;  // per feature: read numbers as levels too
};

// The distinct numbers of each feature column, as many as a categorical
// column may have levels and one more (then `overflow`): what a pass by row
// blocks keeps of the numbers, for the columns that turn out categorical.
class NumberSets {
 public:
  NumberSets(std::int64_t features, int max_levels)
      : sets_(static_cast<std::size_t>(features)), overflow_(sets_.size(), 0), cap_(max_levels) {}
  // Adds the numbers of a row-major block of `rows` rows; with `which`
  // (per feature), of those columns only.
  void add_block(const float* values, std::int64_t rows, const std::vector<char>& which = {});
  const std::vector<float>& numbers(std::int64_t feature) const;
  bool overflow(std::int64_t feature) const { return overflow_[static_cast<std::size_t>(feature)]; }
  std::int64_t cells(std::int64_t feature) const {
    return counts_.empty() ? 0 : counts_[static_cast<std::size_t>(feature)];
  }

 private:
  std::vector<std::vector<float>> sets_;  // sorted
  std::vector<char> overflow_;
  std::vector<std::int64_t> counts_;  // number cells per column
  std::size_t cap_;
};

// What becomes of the cells of the categorical columns, once every row has
// been read: level indices in natural order (numbers by value, then text).
class LevelPlan {
 public:
  // Builds the plan from the text levels met and each column's distinct
  // numbers; throws DataError naming the column and --max-levels when one
  // has too many levels. Adds a note for a column mixing numbers and text.
  LevelPlan(const TextColumns& text, const NumberSets& numbers, const ColumnKinds& kinds,
            int max_levels, const std::vector<std::string>& names, const std::string& path,
            std::vector<std::string>& notes);

  // Rewrites a row-major block of parsed cells (`rows` x the features):
  // text codes and numbers of categorical columns become level indices.
  void apply(float* values, std::int64_t rows) const;
  // Per feature: its levels (empty: numeric), as Dataset::column_levels.
  std::vector<std::vector<std::string>> column_levels() const;
  bool any() const { return any_; }

 private:
  struct Column {
    std::vector<std::string> levels;
    std::vector<float> of_text;                      // text code -> level index
    std::vector<std::pair<float, float>> of_number;  // sorted by number
  };
  std::vector<Column> columns_;
  bool any_ = false;
};

// Makes every feature column that holds text, or that `kinds` makes
// categorical, a categorical column of `data` (the whole file parsed into
// it): the LevelPlan of its cells applied, data.column_levels filled.
void finish_text_columns(Dataset& data, const TextColumns& text, const ColumnKinds& kinds,
                         int max_levels, const std::string& path);

}  // namespace topkfs::detail
