#include "topkfs/data/dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <vector>

#include "topkfs/core/error.hpp"

namespace topkfs {

const char* to_string(TargetKind kind) {
  switch (kind) {
    case TargetKind::None: return "none";
    case TargetKind::Classes: return "classes";
    case TargetKind::Real: return "real";
  }
  return "?";
}

ImageShape checked_image_shape(const std::string& text, const std::string& what,
                               std::int64_t columns, const std::string& source) {
  const ImageShape shape = parse_image_shape(text, what);
  if (shape.pixels() != columns) {
    throw OptionError(fmt::format("{} {} has {} pixels but {} has {} columns", what, text,
                                  shape.pixels(), source, columns));
  }
  return shape;
}

ImageShape parse_image_shape(const std::string& text, const std::string& what) {
  // from_chars refuses what does not fit an int, where sscanf's %d would
  // wrap 4294967301 to 5.
  constexpr int kMaxSide = 1 << 20;
  std::vector<int> sides;
  const char* at = text.data();
  const char* end = text.data() + text.size();
  bool ok = !text.empty();
  while (ok) {
    int side = 0;
    const auto [next, error] = std::from_chars(at, end, side);
    ok = error == std::errc() && next != at && side > 0 && side <= kMaxSide;
    sides.push_back(side);
    at = next;
    if (!ok || at == end) break;
    ok = *at == 'x' && ++at != end;
  }
  ok = ok && (sides.size() == 2 || sides.size() == 3);
  if (!ok) {
    throw OptionError(
        fmt::format("{} takes HxW or HxWxC with sides from 1 to {} (e.g. 28x28), not '{}'", what,
                    kMaxSide, text));
  }
  ImageShape shape{sides[0], sides[1], sides.size() == 3 ? sides[2] : 1};
  if (shape.pixels() > std::numeric_limits<int>::max()) {
    throw OptionError(fmt::format("{} {} has {} pixels, more than {}", what, text, shape.pixels(),
                                  std::numeric_limits<int>::max()));
  }
  return shape;
}

void Dataset::validate() const {
  const auto n = rows();
  if (static_cast<std::int64_t>(feature_names.size()) != cols()) {
    throw DataError(
        fmt::format("{}: {} feature names for {} columns", source, feature_names.size(), cols()));
  }
  if (target_kind == TargetKind::Classes) {
    if (static_cast<std::int64_t>(labels.size()) != n) {
      throw DataError(fmt::format("{}: {} labels for {} rows", source, labels.size(), n));
    }
    for (auto label : labels) {
      TOPKFS_ASSERT(label >= 0 && label < num_classes());
    }
  } else if (target_kind == TargetKind::Real) {
    if (targets.rows() != n) {
      throw DataError(fmt::format("{}: {} target values for {} rows", source, targets.rows(), n));
    }
  }
  if (!sample_weight.empty() && static_cast<std::int64_t>(sample_weight.size()) != n) {
    throw DataError(
        fmt::format("{}: {} sample weights for {} rows", source, sample_weight.size(), n));
  }
  if (predefined_split) {
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (const auto* part : {&predefined_split->train, &predefined_split->test}) {
      for (auto row : *part) {
        if (row < 0 || row >= n || seen[static_cast<std::size_t>(row)]) {
          throw DataError(
              fmt::format("{}: predefined split holds an invalid or repeated row {}", source, row));
        }
        seen[static_cast<std::size_t>(row)] = 1;
      }
    }
  }
  if (!column_levels.empty() && static_cast<std::int64_t>(column_levels.size()) != cols()) {
    throw DataError(
        fmt::format("{}: level lists for {} of {} columns", source, column_levels.size(), cols()));
  }
  if (!column_group.empty()) {
    if (static_cast<std::int64_t>(column_group.size()) != cols()) {
      throw DataError(
          fmt::format("{}: groups for {} of {} columns", source, column_group.size(), cols()));
    }
    for (auto group : column_group) {
      TOPKFS_ASSERT(group >= 0 && group < static_cast<std::int64_t>(group_names.size()));
    }
  }
  if (image_shape && image_shape->pixels() != cols()) {
    throw DataError(fmt::format("{}: image shape {}x{}x{} does not match {} columns", source,
                                image_shape->height, image_shape->width, image_shape->channels,
                                cols()));
  }
}

bool Dataset::has_categorical() const {
  return std::any_of(column_levels.begin(), column_levels.end(),
                     [](const auto& levels) { return !levels.empty(); });
}

std::string default_feature_name(std::int64_t column) { return fmt::format("x{}", column); }

void name_unnamed_features(Dataset& data) {
  if (!data.feature_names.empty()) return;
  for (std::int64_t j = 0; j < data.cols(); ++j)
    data.feature_names.push_back(default_feature_name(j));
}

std::vector<std::int64_t> class_counts(const Dataset& data) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(data.num_classes()), 0);
  for (auto label : data.labels) ++counts[static_cast<std::size_t>(label)];
  return counts;
}

void copy_rows_target(const Dataset& from, Dataset& to) {
  to.target_kind = from.target_kind;
  to.labels = from.labels;
  to.class_names = from.class_names;
  to.targets = from.targets;
  to.target_names = from.target_names;
  to.sample_weight = from.sample_weight;
  to.class_weight = from.class_weight;
  to.predefined_split = from.predefined_split;
  to.source = from.source;
  to.format = from.format;
}

namespace {

// The target, weights and provenance of `rows` of `data` into `out` (whose
// features hold those rows).
void copy_target_of_rows(const Dataset& data, const std::vector<std::int64_t>& rows, Dataset& out) {
  out.target_kind = data.target_kind;
  out.class_names = data.class_names;
  out.target_names = data.target_names;
  if (data.target_kind == TargetKind::Classes) {
    out.labels.reserve(rows.size());
    for (auto row : rows) out.labels.push_back(data.labels[static_cast<std::size_t>(row)]);
  } else if (data.target_kind == TargetKind::Real) {
    out.targets.resize(static_cast<Eigen::Index>(rows.size()), data.targets.cols());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out.targets.row(static_cast<Eigen::Index>(i)) = data.targets.row(rows[i]);
    }
  }
  if (!data.sample_weight.empty()) {
    out.sample_weight.reserve(rows.size());
    for (auto row : rows)
      out.sample_weight.push_back(data.sample_weight[static_cast<std::size_t>(row)]);
  }
  out.class_weight = data.class_weight;
  out.source = data.source;
  out.format = data.format;
}

}  // namespace

Dataset take_rows(const Dataset& data, const std::vector<std::int64_t>& rows) {
  Dataset out;
  out.features.resize(static_cast<Eigen::Index>(rows.size()), data.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    TOPKFS_ASSERT(rows[i] >= 0 && rows[i] < data.rows());
    out.features.row(static_cast<Eigen::Index>(i)) = data.features.row(rows[i]);
  }
  out.feature_names = data.feature_names;
  out.column_levels = data.column_levels;
  out.column_group = data.column_group;
  out.group_names = data.group_names;
  copy_target_of_rows(data, rows, out);
  out.image_shape = data.image_shape;
  return out;
}

Dataset take_rows_and_columns(const Dataset& data, const std::vector<std::int64_t>& rows,
                              const std::vector<std::int64_t>& cols) {
  TOPKFS_ASSERT(data.column_group.empty());
  Dataset out;
  out.features.resize(static_cast<Eigen::Index>(rows.size()),
                      static_cast<Eigen::Index>(cols.size()));
  std::vector<float> row(static_cast<std::size_t>(data.cols()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    TOPKFS_ASSERT(rows[i] >= 0 && rows[i] < data.rows());
    data.feature_rows().copy_rows(&rows[i], 1, row.data());
    for (std::size_t j = 0; j < cols.size(); ++j) {
      out.features(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          row[static_cast<std::size_t>(cols[j])];
    }
  }
  for (auto c : cols) {
    out.feature_names.push_back(data.feature_names[static_cast<std::size_t>(c)]);
    if (!data.column_levels.empty())
      out.column_levels.push_back(data.column_levels[static_cast<std::size_t>(c)]);
  }
  if (!out.has_categorical()) out.column_levels.clear();
  copy_target_of_rows(data, rows, out);
  return out;
}

Dataset take_columns(const Dataset& data, const std::vector<std::int64_t>& cols) {
  Dataset out;
  out.features.resize(data.rows(), static_cast<Eigen::Index>(cols.size()));
  bool identity = static_cast<std::int64_t>(cols.size()) == data.cols();
  for (std::size_t j = 0; j < cols.size(); ++j) {
    const auto c = cols[j];
    if (c < 0 || c >= data.cols()) {
      throw OptionError(fmt::format("{}: column index {} out of range (the data has {} columns)",
                                    data.source, c, data.cols()));
    }
    identity = identity && c == static_cast<std::int64_t>(j);
    out.features.col(static_cast<Eigen::Index>(j)) = data.features.col(c);
    out.feature_names.push_back(data.feature_names[static_cast<std::size_t>(c)]);
    if (!data.column_levels.empty())
      out.column_levels.push_back(data.column_levels[static_cast<std::size_t>(c)]);
  }
  if (!out.has_categorical()) out.column_levels.clear();
  if (!data.column_group.empty()) {
    // The groups that keep a column, numbered again in order of first column.
    std::vector<std::int64_t> renumbered(data.group_names.size(), -1);
    for (auto c : cols) {
      const auto group = static_cast<std::size_t>(data.column_group[static_cast<std::size_t>(c)]);
      if (renumbered[group] < 0) {
        renumbered[group] = static_cast<std::int64_t>(out.group_names.size());
        out.group_names.push_back(data.group_names[group]);
      }
      out.column_group.push_back(renumbered[group]);
    }
  }
  copy_rows_target(data, out);
  if (identity) out.image_shape = data.image_shape;
  return out;
}

}  // namespace topkfs
