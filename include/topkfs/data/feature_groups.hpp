#pragma once
// Groups of a table's columns that a selection keeps or drops whole (a
// pathway of genes, the channels of a sensor): `--groups FILE`, Python
// `groups=`. k then counts groups (select/group_selection.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

struct FeatureGroups {
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> columns;  // per group, its columns in increasing order

  // Every column of groups `groups`, in that order of groups.
  std::vector<std::int64_t> columns_of(const std::vector<std::int64_t>& groups) const;
};

// The groups of FILE, a two-column CSV of column (a name of `data`'s
// columns, or a 0-based index) and group name, an optional header line
// "column,group" first. Columns the file leaves out are each a group of
// their own, named as the column; groups are numbered in order of their
// first column. Throws DataError naming the file and line for a column that
// does not exist, one given twice, or a line without two fields.
FeatureGroups read_feature_groups(const std::string& path, const Dataset& data);

// The same from one group label per column (Python's groups=); a column
// without a label is a group of its own.
FeatureGroups groups_from_labels(const std::vector<std::optional<std::string>>& labels,
                                 const Dataset& data);

// Sets data.column_group and data.group_names to `groups`.
void apply_feature_groups(Dataset& data, const FeatureGroups& groups);

// data's groups as FeatureGroups (one group a column when it has none).
FeatureGroups feature_groups_of(const Dataset& data);

}  // namespace topkfs
