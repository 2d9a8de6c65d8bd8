#include "topkfs/data/feature_groups.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "topkfs/core/error.hpp"
#include "topkfs/io/side_file.hpp"

namespace topkfs {
namespace {

// Assigns the columns to groups by label (-1: a group of its own).
FeatureGroups groups_by_label(const std::vector<std::string>& label_of,
                              const std::vector<char>& labelled, const Dataset& data) {
  FeatureGroups groups;
  std::map<std::string, std::size_t> index;
  for (std::int64_t j = 0; j < data.cols(); ++j) {
    const auto column = static_cast<std::size_t>(j);
    std::size_t group = groups.names.size();
    if (labelled[column]) {
      const auto [found, added] = index.emplace(label_of[column], group);
      group = found->second;
      if (added) {
        groups.names.push_back(label_of[column]);
        groups.columns.emplace_back();
      }
    } else {
      groups.names.push_back(data.feature_names[column]);
      groups.columns.emplace_back();
    }
    groups.columns[group].push_back(j);
  }
  return groups;
}

}  // namespace

std::vector<std::int64_t> FeatureGroups::columns_of(const std::vector<std::int64_t>& groups) const {
  std::vector<std::int64_t> out;
  for (auto group : groups) {
    TOPKFS_ASSERT(group >= 0 && group < static_cast<std::int64_t>(columns.size()));
    const auto& members = columns[static_cast<std::size_t>(group)];
    out.insert(out.end(), members.begin(), members.end());
  }
  return out;
}

FeatureGroups read_feature_groups(const std::string& path, const Dataset& data) {
  const auto columns = static_cast<std::size_t>(data.cols());
  std::vector<std::string> label_of(columns);
  std::vector<char> labelled(columns, 0);
  std::vector<std::int64_t> line_of(columns, 0);
  bool first = true;
  for (const auto& line : read_side_file(path, "groups file")) {
    const auto number = line.number;
    if (line.fields.size() != 2) {
      throw DataError(
          fmt::format("{}: line {}: '{}' is not 'column,group' (two fields separated by a comma)",
                      path, number, fmt::join(line.fields, ",")));
    }
    const std::string& spec = line.fields[0];
    const std::string& group = line.fields[1];
    const std::int64_t column = column_named(data, spec);
    if (first && column < 0 && spec == "column" && group == "group") {
      first = false;
      continue;  // the header line
    }
    first = false;
    if (column < 0) {
      throw DataError(fmt::format(
          "{}: line {}: no column '{}' in {} (give a column name or a 0-based index below {})",
          path, number, spec, data.source, data.cols()));
    }
    if (group.empty()) {
      throw DataError(
          fmt::format("{}: line {}: column '{}' has an empty group name", path, number, spec));
    }
    const auto at = static_cast<std::size_t>(column);
    if (labelled[at]) {
      throw DataError(fmt::format(
          "{}: line {}: column '{}' is already in group '{}' (line {}); a column belongs to one "
          "group",
          path, number, data.feature_names[at], label_of[at], line_of[at]));
    }
    labelled[at] = 1;
    label_of[at] = group;
    line_of[at] = number;
  }
  return groups_by_label(label_of, labelled, data);
}

FeatureGroups groups_from_labels(const std::vector<std::optional<std::string>>& labels,
                                 const Dataset& data) {
  if (static_cast<std::int64_t>(labels.size()) != data.cols()) {
    throw DataError(fmt::format("groups holds {} labels for the {} columns of {}", labels.size(),
                                data.cols(), data.source));
  }
  std::vector<std::string> label_of(labels.size());
  std::vector<char> labelled(labels.size(), 0);
  for (std::size_t j = 0; j < labels.size(); ++j) {
    if (!labels[j]) continue;
    label_of[j] = *labels[j];
    labelled[j] = 1;
  }
  return groups_by_label(label_of, labelled, data);
}

void apply_feature_groups(Dataset& data, const FeatureGroups& groups) {
  data.column_group.assign(static_cast<std::size_t>(data.cols()), -1);
  for (std::size_t g = 0; g < groups.columns.size(); ++g) {
    for (auto column : groups.columns[g]) {
      data.column_group[static_cast<std::size_t>(column)] = static_cast<std::int64_t>(g);
    }
  }
  data.group_names = groups.names;
  data.validate();
}

FeatureGroups feature_groups_of(const Dataset& data) {
  FeatureGroups groups;
  if (data.column_group.empty()) {
    for (std::int64_t j = 0; j < data.cols(); ++j) {
      groups.names.push_back(data.feature_names[static_cast<std::size_t>(j)]);
      groups.columns.push_back({j});
    }
    return groups;
  }
  groups.names = data.group_names;
  groups.columns.resize(groups.names.size());
  for (std::size_t j = 0; j < data.column_group.size(); ++j) {
    groups.columns[static_cast<std::size_t>(data.column_group[j])].push_back(
        static_cast<std::int64_t>(j));
  }
  return groups;
}

}  // namespace topkfs
