#pragma once
// Selecting whole groups of columns (a categorical column's one-hot columns,
// a numeric column and its missing indicator: data/table_encoding.hpp), with
// any method: k counts groups, and groups are ranked by the group score of
// the method's column scores (Selector::group_score; docs/algorithms.md,
// "Groups").
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/select/selector.hpp"

namespace topkfs {

// The number of encoded columns a method is asked to keep so that about
// `k_groups` groups fit: k times the mean group size, at least k, at most
// every column.
int columns_for_groups(const Dataset& data, int k_groups);

// Fits `selector` on rows `rows` of `data` (whose column_group is set) and
// returns the selection of `k_groups` groups: scores, ranking and selected
// indices are of groups (data.group_names), a group without columns ranks
// last. Throws OptionError when k_groups exceeds the groups that have columns.
SelectionResult fit_groups(Selector& selector, const Dataset& data,
                           const std::vector<std::int64_t>& rows, int k_groups,
                           const FitCallbacks& callbacks);

}  // namespace topkfs
