#pragma once
// What `topkfs info` reports about a dataset, computed once in the library so
// that the CLI and the Python package say the same.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct ValueRange {
  double min = 0.0;
  double max = 0.0;
};

struct CategoricalSummary {
  std::string name;
  std::int64_t levels = 0;
  std::vector<std::pair<std::string, std::int64_t>> most_frequent;  // level, count; at most 5
};

struct DatasetSummary {
  std::string source;
  std::string format;
  // How the features are held: in memory, mapped from the file (read on
  // demand, no anonymous memory), or read by row blocks.
  RowStorage storage = RowStorage::InMemory;
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  TargetKind target_kind = TargetKind::None;
  std::vector<std::string> target_names;
  std::vector<std::pair<std::string, std::int64_t>> class_counts;  // name, count
  std::vector<ValueRange> target_ranges;                           // one per output (real targets)
  ValueRange feature_range;  // over every finite value of the numeric features
  std::int64_t constant_columns = 0;
  std::int64_t missing_values = 0;  // NaN or infinite feature/target values
  std::int64_t rows_with_missing = 0;
  // Feature columns with missing (NaN) cells: name, count.
  std::vector<std::pair<std::string, std::int64_t>> missing_by_column;
  std::vector<CategoricalSummary> categorical;                 // the categorical columns, in order
  std::optional<std::pair<std::int64_t, std::int64_t>> split;  // train, test rows
  std::optional<ImageShape> image_shape;
  std::vector<std::string> feature_names_head;  // the first few names
  std::vector<std::string> notes;
};

DatasetSummary summarize(const Dataset& data);
nlohmann::json to_json(const DatasetSummary& summary);

}  // namespace topkfs
