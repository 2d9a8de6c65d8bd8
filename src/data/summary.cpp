#include "topkfs/data/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace topkfs {
namespace {

constexpr std::size_t kFrequentLevels = 5;

CategoricalSummary categorical_summary(const Dataset& data, std::size_t j,
                                       const std::vector<std::int64_t>& counts) {
  CategoricalSummary out;
  out.name = data.feature_names[j];
  out.levels = static_cast<std::int64_t>(counts.size());
  std::vector<std::size_t> order(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return counts[a] > counts[b]; });
  for (std::size_t r = 0; r < order.size() && r < kFrequentLevels; ++r) {
    out.most_frequent.emplace_back(data.column_levels[j][order[r]], counts[order[r]]);
  }
  return out;
}

}  // namespace

DatasetSummary summarize(const Dataset& data) {
  DatasetSummary summary;
  summary.source = data.source;
  summary.format = data.format;
  summary.storage = data.feature_rows().storage();
  summary.rows = data.rows();
  summary.columns = data.cols();
  summary.target_kind = data.target_kind;
  summary.target_names = data.target_names;
  summary.image_shape = data.image_shape;
  summary.notes = data.notes;
  if (data.predefined_split) {
    summary.split = std::make_pair(static_cast<std::int64_t>(data.predefined_split->train.size()),
                                   static_cast<std::int64_t>(data.predefined_split->test.size()));
  }
  if (data.target_kind == TargetKind::Classes) {
    const auto counts = class_counts(data);
    for (std::size_t c = 0; c < counts.size(); ++c) {
      summary.class_counts.emplace_back(data.class_names[c], counts[c]);
    }
  }

  std::vector<char> row_missing(static_cast<std::size_t>(data.rows()), 0);
  const auto m = static_cast<std::size_t>(data.cols());
  std::vector<double> column_low(m, std::numeric_limits<double>::infinity());
  std::vector<double> column_high(m, -std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> column_missing(m, 0);
  std::vector<std::vector<std::int64_t>> level_counts(m);
  for (std::size_t j = 0; j < m; ++j) {
    if (data.is_categorical(static_cast<std::int64_t>(j)))
      level_counts[j].assign(data.column_levels[j].size(), 0);
  }
  // By blocks of rows in file order, so that a mapped matrix is read once
  // and a matrix streamed from the file (HDF5 above the memory budget) is
  // never held whole.
  const RowSource& rows = data.feature_rows();
  rows.for_each_block(0, rows.row_count(), rows.pass_block_rows(),
                      [&](std::int64_t first, std::int64_t count, const float* values) {
                        for (std::int64_t r = 0; r < count; ++r) {
                          const float* row = values + r * static_cast<std::int64_t>(m);
                          for (std::size_t j = 0; j < m; ++j) {
                            const double v = row[j];
                            if (!std::isfinite(v)) {
                              ++summary.missing_values;
                              ++column_missing[j];
                              row_missing[static_cast<std::size_t>(first + r)] = 1;
                              continue;
                            }
                            if (!level_counts[j].empty())
                              ++level_counts[j][static_cast<std::size_t>(v)];
                            column_low[j] = std::min(column_low[j], v);
                            column_high[j] = std::max(column_high[j], v);
                          }
                        }
                      });
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (std::size_t j = 0; j < m; ++j) {
    if (column_low[j] == column_high[j]) ++summary.constant_columns;
    if (column_missing[j] > 0)
      summary.missing_by_column.emplace_back(data.feature_names[j], column_missing[j]);
    if (!level_counts[j].empty()) {
      summary.categorical.push_back(categorical_summary(data, j, level_counts[j]));
      continue;  // level indices are no values
    }
    low = std::min(low, column_low[j]);
    high = std::max(high, column_high[j]);
  }
  summary.feature_range = {low, high};

  if (data.target_kind == TargetKind::Real) {
    for (Eigen::Index j = 0; j < data.targets.cols(); ++j) {
      ValueRange range{std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()};
      for (Eigen::Index i = 0; i < data.targets.rows(); ++i) {
        const double v = data.targets(i, j);
        if (!std::isfinite(v)) {
          ++summary.missing_values;
          row_missing[static_cast<std::size_t>(i)] = 1;
          continue;
        }
        range.min = std::min(range.min, v);
        range.max = std::max(range.max, v);
      }
      summary.target_ranges.push_back(range);
    }
  }
  for (char flag : row_missing) summary.rows_with_missing += flag;
  for (std::size_t j = 0; j < data.feature_names.size() && j < 8; ++j) {
    summary.feature_names_head.push_back(data.feature_names[j]);
  }
  return summary;
}

nlohmann::json to_json(const DatasetSummary& summary) {
  nlohmann::json out = {
      {"source", summary.source},
      {"format", summary.format},
      {"storage", to_string(summary.storage)},
      {"rows", summary.rows},
      {"columns", summary.columns},
      {"target_kind", to_string(summary.target_kind)},
      {"target_names", summary.target_names},
      // null when no feature holds a number (every column categorical or missing)
      {"feature_range",
       summary.feature_range.min <= summary.feature_range.max
           ? nlohmann::json{{"min", summary.feature_range.min}, {"max", summary.feature_range.max}}
           : nlohmann::json(nullptr)},
      {"constant_columns", summary.constant_columns},
      {"missing_values", summary.missing_values},
      {"rows_with_missing", summary.rows_with_missing},
      {"feature_names_head", summary.feature_names_head},
      {"notes", summary.notes},
  };
  nlohmann::json missing = nlohmann::json::object();
  for (const auto& [name, count] : summary.missing_by_column) missing[name] = count;
  out["missing_by_column"] = missing;
  nlohmann::json categorical = nlohmann::json::array();
  for (const auto& column : summary.categorical) {
    nlohmann::json frequent = nlohmann::json::array();
    for (const auto& [level, count] : column.most_frequent) {
      frequent.push_back({{"level", level}, {"count", count}});
    }
    categorical.push_back(
        {{"name", column.name}, {"levels", column.levels}, {"most_frequent", frequent}});
  }
  out["categorical"] = categorical;
  if (summary.target_kind == TargetKind::Classes) {
    nlohmann::json classes = nlohmann::json::array();
    for (const auto& [name, count] : summary.class_counts) {
      classes.push_back({{"name", name}, {"count", count}});
    }
    out["classes"] = classes;
  }
  if (summary.target_kind == TargetKind::Real) {
    nlohmann::json ranges = nlohmann::json::array();
    for (std::size_t j = 0; j < summary.target_ranges.size(); ++j) {
      ranges.push_back({{"name", summary.target_names[j]},
                        {"min", summary.target_ranges[j].min},
                        {"max", summary.target_ranges[j].max}});
    }
    out["target_ranges"] = ranges;
  }
  out["split"] = summary.split ? nlohmann::json{{"train", summary.split->first},
                                                {"test", summary.split->second}}
                               : nlohmann::json(nullptr);
  out["image_shape"] = summary.image_shape
                           ? nlohmann::json{{"height", summary.image_shape->height},
                                            {"width", summary.image_shape->width},
                                            {"channels", summary.image_shape->channels}}
                           : nlohmann::json(nullptr);
  return out;
}

}  // namespace topkfs
