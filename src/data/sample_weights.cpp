#include "topkfs/data/sample_weights.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <set>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/io/side_file.hpp"

namespace topkfs {
namespace {

// The number `text` spells in full, or nothing.
std::optional<double> weight_number(const std::string& text) {
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

std::vector<double> class_factors(const Dataset& data, const std::vector<std::int64_t>& rows) {
  const auto classes = static_cast<std::size_t>(data.num_classes());
  if (!data.class_weight.balanced) {
    std::vector<double> factors = data.class_weight.per_class;
    factors.resize(classes, 1.0);
    return factors;
  }
  std::vector<double> count(classes, 0.0);
  for (auto row : rows)
    count[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(row)])] += 1.0;
  std::vector<double> factors(classes, 0.0);
  for (std::size_t c = 0; c < classes; ++c) {
    if (count[c] > 0)
      factors[c] = static_cast<double>(rows.size()) / (static_cast<double>(classes) * count[c]);
  }
  return factors;
}

}  // namespace

bool has_weights(const Dataset& data) {
  return !data.sample_weight.empty() ||
         (!data.class_weight.empty() && data.target_kind == TargetKind::Classes);
}

std::vector<double> row_weights(const Dataset& data, const std::vector<std::int64_t>& rows) {
  if (!has_weights(data)) return {};
  std::vector<double> weights = score_weights(data, rows);
  if (weights.empty()) weights.assign(rows.size(), 1.0);
  if (data.target_kind == TargetKind::Classes && !data.class_weight.empty()) {
    const auto factors = class_factors(data, rows);
    for (std::size_t i = 0; i < rows.size(); ++i)
      weights[i] *=
          factors[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(rows[i])])];
  }
  return weights;
}

std::vector<double> score_weights(const Dataset& data, const std::vector<std::int64_t>& rows) {
  if (data.sample_weight.empty()) return {};
  std::vector<double> weights(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    weights[i] = data.sample_weight[static_cast<std::size_t>(rows[i])];
  return weights;
}

void check_sample_weights(const std::vector<double>& weights, const std::string& source,
                          const std::string& what) {
  bool any = false;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (!std::isfinite(w) || w < 0) {
      throw DataError(
          fmt::format("{}: {}: the weight of row {} is {}; a sample weight is a finite number >= 0",
                      source, what, i + 1, w));
    }
    any = any || w > 0;
  }
  if (!any) {
    throw DataError(
        fmt::format("{}: {}: every sample weight is 0; at least one row must weigh", source, what));
  }
}

void check_rows_weigh(const std::vector<double>& weights, const std::string& source) {
  double total = 0.0;
  for (double w : weights) total += w;
  if (!weights.empty() && !(total > 0)) {
    throw DataError(fmt::format(
        "{}: the rows a fit learns from all weigh 0 (sample or class weights); give some of them "
        "a weight above 0",
        source));
  }
}

std::vector<double> read_weight_file(const std::string& path, std::int64_t rows) {
  std::vector<double> weights;
  const auto lines = read_side_file(path, "weight file");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    const auto value = line.fields.size() == 1 ? weight_number(line.fields[0]) : std::nullopt;
    if (!value) {
      if (i == 0 && line.fields.size() == 1) continue;  // a header line
      throw DataError(fmt::format("{}: line {}: '{}' is not a weight (one number per line)", path,
                                  line.number, fmt::join(line.fields, ",")));
    }
    if (!std::isfinite(*value) || *value < 0) {
      throw DataError(
          fmt::format("{}: line {}: the weight {} is {}; a sample weight is a finite number >= 0",
                      path, line.number, line.fields[0],
                      std::isnan(*value) ? "not a number" : "below 0 or infinite"));
    }
    weights.push_back(*value);
  }
  if (static_cast<std::int64_t>(weights.size()) != rows) {
    throw DataError(fmt::format(
        "{}: {} weights for the {} rows of the data as read; give one weight per row, in order "
        "(rows dropped for a missing target or by {} are not counted: a weight column, {}, stays "
        "with its rows)",
        path, weights.size(), rows, option_ref("nan", "drop"), option_ref("sample-weight", "COL")));
  }
  check_sample_weights(weights, path, "weight file");
  return weights;
}

void take_weight_column(Dataset& data, const std::string& column) {
  const std::int64_t at = column_named(data, column);
  if (at < 0) {
    throw DataError(
        fmt::format("{}: no column '{}' for {} (give a column name or a 0-based index below {})",
                    data.source, column, option_ref("sample-weight"), data.cols()));
  }
  if (data.row_blocks || data.features.rows() != data.rows() ||
      data.features.cols() != data.cols()) {
    throw DataError(
        fmt::format("{}: {} takes a column of data read into memory; give the weights with {}",
                    data.source, option_ref("sample-weight"), option_ref("weight-file")));
  }
  const std::string name = data.feature_names[static_cast<std::size_t>(at)];
  if (data.is_categorical(at)) {
    throw DataError(fmt::format("{}: the weight column '{}' holds text; weights are numbers",
                                data.source, name));
  }
  std::vector<double> weights(static_cast<std::size_t>(data.rows()));
  for (std::int64_t i = 0; i < data.rows(); ++i)
    weights[static_cast<std::size_t>(i)] = data.features(i, at);
  check_sample_weights(weights, data.source, fmt::format("weight column '{}'", name));
  std::vector<std::int64_t> keep;
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    if (j != at) keep.push_back(j);
  }
  if (keep.empty()) {
    throw DataError(
        fmt::format("{}: the weight column '{}' is the only feature", data.source, name));
  }
  Dataset rest = take_columns(data, keep);
  rest.predefined_split = data.predefined_split;
  rest.notes = data.notes;
  rest.missing_cells_seen = data.missing_cells_seen;
  rest.sample_weight = std::move(weights);
  rest.notes.push_back(fmt::format("column '{}' holds the sample weights (not a feature)", name));
  data = std::move(rest);
}

ClassWeight read_class_weight(const std::string& spec, const Dataset& data) {
  if (data.target_kind != TargetKind::Classes) {
    throw DataError(fmt::format("{}: {} needs a class target; this one is {}", data.source,
                                option_ref("class-weight"), to_string(data.target_kind)));
  }
  ClassWeight weight;
  if (spec == "balanced") {
    weight.balanced = true;
    return weight;
  }
  weight.per_class.assign(static_cast<std::size_t>(data.num_classes()), 1.0);
  std::set<std::size_t> seen;
  const auto lines = read_side_file(spec, "class weight file ('balanced' or FILE)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    if (line.fields.size() != 2) {
      throw DataError(fmt::format("{}: line {}: '{}' is not 'class,weight'", spec, line.number,
                                  fmt::join(line.fields, ",")));
    }
    std::size_t label = data.class_names.size();
    for (std::size_t c = 0; c < data.class_names.size(); ++c) {
      if (data.class_names[c] == line.fields[0]) label = c;
    }
    const auto value = weight_number(line.fields[1]);
    if (i == 0 && label == data.class_names.size() && !value) continue;  // a header line
    if (label == data.class_names.size()) {
      throw DataError(fmt::format("{}: line {}: no class '{}' in the target of {}", spec,
                                  line.number, line.fields[0], data.source));
    }
    if (!value || !std::isfinite(*value) || *value < 0) {
      throw DataError(fmt::format("{}: line {}: '{}' is not a class weight (a finite number >= 0)",
                                  spec, line.number, line.fields[1]));
    }
    if (!seen.insert(label).second) {
      throw DataError(
          fmt::format("{}: line {}: class '{}' is given twice", spec, line.number, line.fields[0]));
    }
    weight.per_class[label] = *value;
  }
  return weight;
}

void apply_sample_weights(Dataset& data, std::vector<double> weights, const std::string& what) {
  if (static_cast<std::int64_t>(weights.size()) != data.rows()) {
    throw DataError(fmt::format("{}: {} holds {} weights for {} rows", data.source, what,
                                weights.size(), data.rows()));
  }
  check_sample_weights(weights, data.source, what);
  data.sample_weight = std::move(weights);
}

}  // namespace topkfs
