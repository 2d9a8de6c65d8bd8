#include "topkfs/data/table_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

constexpr const char* kMissingLevelName = "(missing)";

double column_median(std::vector<float>& values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), middle);
  return 0.5 * (lower + upper);
}

// The level index of each level name of a column as `data` holds it, in
// the encoding's levels (-1 where the encoding does not know it).
std::vector<std::int64_t> encoding_level_map(const ColumnEncoding& column,
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

using RowsVisitor = std::function<void(std::int64_t rows, const float* values)>;

// The encoding of `table`'s columns from the `count` rows that `pass`
// visits (in blocks, row-major) each time it is called: one pass for the
// missing cells and the levels present, a second, when a numeric column
// misses cells, for those columns' values (their medians).
TableEncoding learn_by_passes(const Dataset& table, std::int64_t count,
                              const std::function<void(const RowsVisitor&)>& pass) {
  const auto m = static_cast<std::int64_t>(table.feature_names.size());
  std::vector<std::int64_t> missing(static_cast<std::size_t>(m), 0);
  std::vector<std::vector<char>> seen(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j) {
    if (table.is_categorical(j)) {
      seen[static_cast<std::size_t>(j)].assign(
          table.column_levels[static_cast<std::size_t>(j)].size(), 0);
    }
  }
  pass([&](std::int64_t rows, const float* values) {
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < m; ++j) {
        const float v = values[i * m + j];
        auto& levels = seen[static_cast<std::size_t>(j)];
        if (std::isnan(v)) {
          ++missing[static_cast<std::size_t>(j)];
        } else if (!levels.empty()) {
          levels[static_cast<std::size_t>(v)] = 1;
        }
      }
    }
  });
  std::vector<std::vector<float>> present(static_cast<std::size_t>(m));
  bool any = false;
  for (std::int64_t j = 0; j < m; ++j) {
    if (!table.is_categorical(j) && missing[static_cast<std::size_t>(j)] > 0) any = true;
  }
  for (std::int64_t j = 0; any && j < m; ++j) {
    const auto at = static_cast<std::size_t>(j);
    if (!table.is_categorical(j) && missing[at] > 0) {
      present[at].reserve(static_cast<std::size_t>(count - missing[at]));
    }
  }
  if (any) {
    pass([&](std::int64_t rows, const float* values) {
      for (std::int64_t j = 0; j < m; ++j) {
        if (table.is_categorical(j) || missing[static_cast<std::size_t>(j)] == 0) continue;
        for (std::int64_t i = 0; i < rows; ++i) {
          const float v = values[i * m + j];
          if (!std::isnan(v)) present[static_cast<std::size_t>(j)].push_back(v);
        }
      }
    });
  }
  TableEncoding encoding;
  encoding.learned_rows = count;
  for (std::int64_t j = 0; j < m; ++j) {
    const auto at = static_cast<std::size_t>(j);
    ColumnEncoding column;
    column.name = table.feature_names[at];
    column.missing_cells = missing[at];
    if (table.is_categorical(j)) {
      column.categorical = true;
      for (std::size_t l = 0; l < seen[at].size(); ++l) {
        if (seen[at][l]) column.levels.push_back(table.column_levels[at][l]);
      }
      column.missing_level = missing[at] > 0;
      column.dropped = column.levels.empty();
    } else {
      column.dropped = missing[at] == count;
      column.indicator = missing[at] > 0 && !column.dropped;
      if (!present[at].empty()) column.fill = column_median(present[at]);
    }
    encoding.columns.push_back(std::move(column));
  }
  return encoding;
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
        "; {} numeric column{} with missing cells filled by the column_median, each with "
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
  const std::int64_t block = data.feature_rows().pass_block_rows();
  return learn_by_passes(data, static_cast<std::int64_t>(rows.size()),
                         [&](const RowsVisitor& visit) {
                           for_each_gathered_block(data.features, rows, block, visit);
                         });
}

TableEncoder::TableEncoder(const TableEncoding& encoding,
                           const std::vector<std::vector<std::string>>& levels,
                           const std::string& source)
    : encoding_(encoding), table_columns_(static_cast<std::int64_t>(encoding.columns.size())) {
  std::int64_t at = 0;
  for (std::size_t j = 0; j < encoding.columns.size(); ++j) {
    const ColumnEncoding& column = encoding.columns[j];
    const bool text = !levels.empty() && !levels[j].empty();
    group_names_.push_back(column.name);
    Plan plan;
    plan.at = at;
    plan.text = text;
    if (!column.dropped) {
      for (std::int64_t c = 0; c < column.width(); ++c) {
        groups_.push_back(static_cast<std::int64_t>(j));
      }
      if (column.categorical) {
        for (const auto& level : column.levels) names_.push_back(column.name + "=" + level);
        if (column.missing_level) names_.push_back(column.name + "=" + kMissingLevelName);
        // Level names of the data's cells: its own levels, or the numbers
        // it holds when it read the column as numbers.
        if (text) plan.to_level = encoding_level_map(column, levels[j]);
      } else {
        if (text) {
          throw DataError(fmt::format(
              "{}: column '{}' holds text (e.g. '{}') but the selection learned numbers there",
              source, column.name, levels[j].front()));
        }
        names_.push_back(column.name);
        if (column.indicator) names_.push_back(column.name + " " + kMissingLevelName);
      }
    }
    plans_.push_back(std::move(plan));
    at += column.width();
  }
  columns_ = at;
}

void TableEncoder::encode(const float* raw, std::int64_t rows, float* out,
                          std::int64_t* unseen) const {
  const auto m = static_cast<std::size_t>(table_columns_);
  const auto width = static_cast<std::size_t>(columns_);
  std::fill(out, out + static_cast<std::size_t>(rows) * width, 0.0f);
  for (std::size_t j = 0; j < m; ++j) {
    const ColumnEncoding& column = encoding_.columns[j];
    if (column.dropped) continue;
    const Plan& plan = plans_[j];
    std::unordered_map<float, std::int64_t> number_codes;
    const auto fill = static_cast<float>(column.fill);
    const auto levels = static_cast<std::int64_t>(column.levels.size());
    for (std::int64_t i = 0; i < rows; ++i) {
      const float v = raw[static_cast<std::size_t>(i) * m + j];
      float* row = out + static_cast<std::size_t>(i) * width + static_cast<std::size_t>(plan.at);
      const bool missing = std::isnan(v);
      if (!column.categorical) {
        row[0] = missing ? fill : v;
        if (column.indicator) row[1] = missing ? 1.0f : 0.0f;
        continue;
      }
      if (missing) {
        if (column.missing_level) row[levels] = 1;
        continue;
      }
      std::int64_t level = -1;
      if (plan.text) {
        level = plan.to_level[static_cast<std::size_t>(v)];
      } else {
        auto found = number_codes.find(v);
        if (found == number_codes.end()) {
          found =
              number_codes.emplace(v, encoding_level_map(column, {number_level_name(v)}).front())
                  .first;
        }
        level = found->second;
      }
      if (level >= 0) {
        row[level] = 1;
      } else if (unseen != nullptr) {
        ++*unseen;
      }
    }
  }
}

void TableEncoder::describe(Dataset& out) const {
  out.feature_names = names_;
  out.column_group = groups_;
  out.group_names = group_names_;
}

Dataset encode_table(const Dataset& data, const TableEncoding& encoding, std::int64_t* unseen) {
  TOPKFS_ASSERT(static_cast<std::size_t>(data.cols()) == encoding.columns.size());
  const TableEncoder encoder(encoding, data.column_levels, data.source);
  Dataset out;
  out.features.resize(data.rows(), encoder.columns());
  encoder.encode(data.features.data(), data.rows(), out.features.data(), unseen);
  encoder.describe(out);
  copy_rows_target(data, out);
  out.notes = data.notes;
  return out;
}

TableEncoding learn_encoding(const RowSource& rows, const Dataset& table) {
  TOPKFS_ASSERT(static_cast<std::int64_t>(table.feature_names.size()) == rows.column_count());
  const std::int64_t block = rows.pass_block_rows();
  return learn_by_passes(table, rows.row_count(), [&](const RowsVisitor& visit) {
    rows.for_each_block(
        0, rows.row_count(), block,
        [&](std::int64_t, std::int64_t n, const float* values) { visit(n, values); });
  });
}

bool is_identity(const TableEncoding& encoding) {
  return std::all_of(encoding.columns.begin(), encoding.columns.end(), [](const ColumnEncoding& c) {
    return !c.categorical && !c.indicator && !c.dropped;
  });
}

EncodedRows::EncodedRows(const RowSource& raw, const TableEncoder& encoder)
    : raw_(raw), encoder_(encoder) {}

void EncodedRows::copy_rows(const std::int64_t* rows, std::size_t count, float* out) const {
  std::vector<float> buffer(count * static_cast<std::size_t>(raw_.column_count()));
  raw_.copy_rows(rows, count, buffer.data());
  encoder_.encode(buffer.data(), static_cast<std::int64_t>(count), out);
}

void EncodedRows::for_each_block(std::int64_t first, std::int64_t last, std::int64_t block_rows,
                                 const RowBlockVisitor& visit) const {
  std::vector<float> encoded;
  raw_.for_each_block(first, last, block_rows,
                      [&](std::int64_t at, std::int64_t count, const float* values) {
                        encoded.resize(static_cast<std::size_t>(count * encoder_.columns()));
                        encoder_.encode(values, count, encoded.data());
                        visit(at, count, encoded.data());
                      });
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
