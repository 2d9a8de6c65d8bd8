#include "topkfs/data/table_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

constexpr const char* kMissingSuffix = "(missing)";

double median(std::vector<float>& values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), middle);
  return 0.5 * (lower + upper);
}

ColumnEncoding learn_categorical(const Dataset& data, std::int64_t j,
                                 const std::vector<std::int64_t>& rows) {
  const auto& all_levels = data.column_levels[static_cast<std::size_t>(j)];
  std::vector<char> seen(all_levels.size(), 0);
  ColumnEncoding column;
  column.categorical = true;
  for (auto i : rows) {
    const float v = data.features(i, j);
    if (std::isnan(v)) {
      ++column.missing_cells;
    } else {
      seen[static_cast<std::size_t>(v)] = 1;
    }
  }
  for (std::size_t level = 0; level < all_levels.size(); ++level) {
    if (seen[level]) column.levels.push_back(all_levels[level]);
  }
  column.missing_level = column.missing_cells > 0;
  column.dropped = column.levels.empty();
  return column;
}

ColumnEncoding learn_numeric(const Dataset& data, std::int64_t j,
                             const std::vector<std::int64_t>& rows) {
  ColumnEncoding column;
  std::vector<float> present;
  present.reserve(rows.size());
  for (auto i : rows) {
    const float v = data.features(i, j);
    if (std::isnan(v)) {
      ++column.missing_cells;
    } else {
      present.push_back(v);
    }
  }
  column.dropped = present.empty();
  column.indicator = column.missing_cells > 0 && !column.dropped;
  if (!present.empty()) column.fill = median(present);
  return column;
}

// The level index of each level name of a column as `data` holds it, in
// the encoding's levels (-1 where the encoding does not know it).
std::vector<std::int64_t> level_map(const ColumnEncoding& column,
                                    const std::vector<std::string>& data_levels) {
  std::unordered_map<std::string, std::int64_t> index;
  for (std::size_t l = 0; l < column.levels.size(); ++l) {
    index.emplace(column.levels[l], static_cast<std::int64_t>(l));
  }
  std::vector<std::int64_t> out;
  out.reserve(data_levels.size());
  for (const auto& name : data_levels) {
    const auto found = index.find(name);
    out.push_back(found == index.end() ? -1 : found->second);
  }
  return out;
}

}  // namespace

std::string number_level_name(float value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15f) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{}", value);
}

std::int64_t ColumnEncoding::width() const {
  if (dropped) return 0;
  if (categorical) return static_cast<std::int64_t>(levels.size()) + (missing_level ? 1 : 0);
  return indicator ? 2 : 1;
}

std::int64_t TableEncoding::encoded_columns() const {
  std::int64_t total = 0;
  for (const auto& column : columns) total += column.width();
  return total;
}

std::vector<std::int64_t> TableEncoding::encoded_columns_of(
    const std::vector<std::int64_t>& original) const {
  std::vector<std::int64_t> first(columns.size() + 1, 0);
  for (std::size_t j = 0; j < columns.size(); ++j) first[j + 1] = first[j] + columns[j].width();
  std::vector<std::int64_t> out;
  for (auto j : original) {
    TOPKFS_ASSERT(j >= 0 && j < static_cast<std::int64_t>(columns.size()));
    for (auto c = first[static_cast<std::size_t>(j)]; c < first[static_cast<std::size_t>(j) + 1];
         ++c)
      out.push_back(c);
  }
  return out;
}

std::string TableEncoding::summary() const {
  std::int64_t categorical = 0;
  std::int64_t levels = 0;
  std::int64_t imputed = 0;
  std::vector<std::string> dropped;
  for (const auto& column : columns) {
    if (column.dropped) {
      dropped.push_back("'" + column.name + "'");
    } else if (column.categorical) {
      ++categorical;
      levels += column.width();
    } else if (column.indicator) {
      ++imputed;
    }
  }
  std::string text = fmt::format("encoded on the {} rows learned from: {} columns became {}",
                                 learned_rows, columns.size(), encoded_columns());
  if (categorical > 0) {
    text += fmt::format(
        "; {} categorical column{} one-hot ({} level columns, a level unseen "
        "there encodes as zeros)",
        categorical, categorical == 1 ? "" : "s", levels);
  }
  if (imputed > 0) {
    text += fmt::format(
        "; {} numeric column{} with missing cells filled by the median, each with "
        "a missing-indicator column",
        imputed, imputed == 1 ? "" : "s");
  }
  if (!dropped.empty()) {
    text +=
        fmt::format("; dropped, missing in every one of those rows: {}", fmt::join(dropped, ", "));
  }
  return text;
}

bool needs_encoding(const Dataset& data) {
  if (data.has_categorical()) return true;
  if (data.row_blocks || data.features.storage() != RowStorage::InMemory) return false;
  const float* values = data.features.data();
  const auto count = data.features.size();
  for (Eigen::Index at = 0; at < count; ++at) {
    if (std::isnan(values[at])) return true;
  }
  return false;
}

TableEncoding learn_encoding(const Dataset& data, const std::vector<std::int64_t>& rows) {
  TableEncoding encoding;
  encoding.learned_rows = static_cast<std::int64_t>(rows.size());
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    ColumnEncoding column =
        data.is_categorical(j) ? learn_categorical(data, j, rows) : learn_numeric(data, j, rows);
    column.name = data.feature_names[static_cast<std::size_t>(j)];
    encoding.columns.push_back(std::move(column));
  }
  return encoding;
}

Dataset encode_table(const Dataset& data, const TableEncoding& encoding, std::int64_t* unseen) {
  TOPKFS_ASSERT(static_cast<std::size_t>(data.cols()) == encoding.columns.size());
  const std::int64_t n = data.rows();
  Dataset out;
  out.features.resize(n, encoding.encoded_columns());
  out.features.setZero();
  std::int64_t at = 0;  // first encoded column of the current table column
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    const ColumnEncoding& column = encoding.columns[static_cast<std::size_t>(j)];
    out.group_names.push_back(column.name);
    if (column.dropped) continue;
    const auto group = static_cast<std::int64_t>(out.group_names.size()) - 1;
    for (std::int64_t c = 0; c < column.width(); ++c) out.column_group.push_back(group);
    if (column.categorical) {
      // Level names of the data's cells: its own levels, or the numbers it
      // holds when it read the column as numbers.
      std::vector<std::string> names;
      if (data.is_categorical(j)) names = data.column_levels[static_cast<std::size_t>(j)];
      std::unordered_map<float, std::int64_t> number_codes;
      for (const auto& level : column.levels)
        out.feature_names.push_back(column.name + "=" + level);
      if (column.missing_level) out.feature_names.push_back(column.name + "=" + kMissingSuffix);
      std::vector<std::int64_t> to_level = level_map(column, names);
      for (std::int64_t i = 0; i < n; ++i) {
        const float v = data.features(i, j);
        std::int64_t level = -1;
        if (std::isnan(v)) {
          if (column.missing_level)
            out.features(i, at + static_cast<std::int64_t>(column.levels.size())) = 1;
          continue;
        }
        if (data.is_categorical(j)) {
          level = to_level[static_cast<std::size_t>(v)];
        } else {
          auto found = number_codes.find(v);
          if (found == number_codes.end()) {
            found =
                number_codes.emplace(v, level_map(column, {number_level_name(v)}).front()).first;
          }
          level = found->second;
        }
        if (level >= 0) {
          out.features(i, at + level) = 1;
        } else if (unseen != nullptr) {
          ++*unseen;
        }
      }
    } else {
      if (data.is_categorical(j)) {
        throw DataError(fmt::format(
            "{}: column '{}' holds text (e.g. '{}') but the selection learned numbers there",
            data.source, column.name, data.column_levels[static_cast<std::size_t>(j)].front()));
      }
      out.feature_names.push_back(column.name);
      if (column.indicator) out.feature_names.push_back(column.name + " " + kMissingSuffix);
      const auto fill = static_cast<float>(column.fill);
      for (std::int64_t i = 0; i < n; ++i) {
        const float v = data.features(i, j);
        const bool missing = std::isnan(v);
        out.features(i, at) = missing ? fill : v;
        if (column.indicator) out.features(i, at + 1) = missing ? 1.0f : 0.0f;
      }
    }
    at += column.width();
  }
  copy_rows_target(data, out);
  out.notes = data.notes;
  return out;
}

nlohmann::json to_json(const TableEncoding& encoding) {
  nlohmann::json columns = nlohmann::json::array();
  for (const auto& column : encoding.columns) {
    nlohmann::json entry{{"name", column.name},
                         {"kind", column.categorical ? "categorical" : "numeric"},
                         {"missing_cells", column.missing_cells},
                         {"dropped", column.dropped}};
    if (column.categorical) {
      entry["levels"] = column.levels;
      entry["missing_level"] = column.missing_level;
    } else {
      entry["fill"] = column.fill;
      entry["indicator"] = column.indicator;
    }
    columns.push_back(std::move(entry));
  }
  return {{"learned_rows", encoding.learned_rows}, {"columns", std::move(columns)}};
}

TableEncoding table_encoding_from_json(const nlohmann::json& json, const std::string& where) {
  const auto bad = [&](const std::string& what) {
    return DataError(fmt::format("{}: the encoding {}", where, what));
  };
  if (!json.is_object() || !json.contains("columns") || !json["columns"].is_array()) {
    throw bad("is not an object with a 'columns' list");
  }
  TableEncoding encoding;
  try {
    encoding.learned_rows = json.value("learned_rows", std::int64_t{0});
    for (const auto& entry : json["columns"]) {
      ColumnEncoding column;
      column.name = entry.at("name").get<std::string>();
      const auto kind = entry.at("kind").get<std::string>();
      if (kind != "categorical" && kind != "numeric") {
        throw bad(fmt::format("gives column '{}' the kind '{}' (categorical or numeric)",
                              column.name, kind));
      }
      column.categorical = kind == "categorical";
      column.missing_cells = entry.value("missing_cells", std::int64_t{0});
      column.dropped = entry.value("dropped", false);
      if (column.categorical) {
        column.levels = entry.at("levels").get<std::vector<std::string>>();
        column.missing_level = entry.value("missing_level", false);
      } else {
        column.fill = entry.at("fill").get<double>();
        column.indicator = entry.value("indicator", false);
        if (!std::isfinite(column.fill)) {
          throw bad(fmt::format("fills column '{}' with a value that is not finite", column.name));
        }
      }
      encoding.columns.push_back(std::move(column));
    }
  } catch (const nlohmann::json::exception& error) {
    throw bad(fmt::format("is malformed ({})", error.what()));
  }
  return encoding;
}

}  // namespace topkfs
