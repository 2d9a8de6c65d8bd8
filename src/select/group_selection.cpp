#include "topkfs/select/group_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/select/run_selection.hpp"

namespace topkfs {
namespace {

std::vector<std::int64_t> columns_per_group(const Dataset& data) {
  std::vector<std::int64_t> sizes(data.group_names.size(), 0);
  for (auto group : data.column_group) ++sizes[static_cast<std::size_t>(group)];
  return sizes;
}

std::int64_t groups_holding_columns(const std::vector<std::int64_t>& sizes) {
  return std::count_if(sizes.begin(), sizes.end(), [](auto size) { return size > 0; });
}

const char* group_rule(GroupScore score) {
  switch (score) {
    case GroupScore::Norm: return "Euclidean norm";
    case GroupScore::Sum: return "sum";
    case GroupScore::Shared: return "one shared value";
  }
  return "";
}

}  // namespace

int columns_for_groups(const Dataset& data, int k_groups) {
  const auto used = groups_holding_columns(columns_per_group(data));
  const double mean_size =
      static_cast<double>(data.cols()) / static_cast<double>(std::max<std::int64_t>(used, 1));
  const auto columns = static_cast<std::int64_t>(std::lround(k_groups * mean_size));
  return static_cast<int>(std::clamp<std::int64_t>(columns, k_groups, data.cols()));
}

SelectionResult fit_groups(Selector& selector, const Dataset& data,
                           const std::vector<std::int64_t>& rows, int k_groups,
                           const FitCallbacks& callbacks) {
  TOPKFS_ASSERT(!data.column_group.empty());
  const std::vector<std::int64_t> sizes = columns_per_group(data);
  const std::int64_t usable = groups_holding_columns(sizes);
  if (k_groups < 1 || k_groups > usable) {
    throw OptionError(fmt::format(
        "{} is out of range: {} has {} columns that can be selected ({} of {} were dropped, "
        "missing in every row learned from)",
        option_ref("k", k_groups), data.source, usable,
        data.group_names.size() - static_cast<std::size_t>(usable), data.group_names.size()));
  }
  const int k_columns = selector.selects_groups() ? k_groups : columns_for_groups(data, k_groups);
  SelectionResult columns = fit_on_rows(selector, data, rows, k_columns, callbacks);

  const std::size_t groups = data.group_names.size();
  std::vector<double> sum(groups, 0.0);
  std::vector<double> squares(groups, 0.0);
  std::vector<double> largest(groups, -std::numeric_limits<double>::infinity());
  std::vector<double> frequency(columns.frequency.empty() ? 0 : groups, 0.0);
  for (std::size_t c = 0; c < columns.scores.size(); ++c) {
    const auto g = static_cast<std::size_t>(data.column_group[c]);
    const double score = columns.scores[c];
    sum[g] += score;
    squares[g] += score > 0 ? score * score : 0.0;
    largest[g] = std::max(largest[g], score);
    // A group counts as chosen in a run when one of its columns was.
    if (!frequency.empty()) frequency[g] = std::max(frequency[g], columns.frequency[c]);
  }
  SelectionResult result = std::move(columns);
  result.k = k_groups;
  result.scores.assign(groups, 0.0);
  std::vector<double> has_columns(groups, 0.0);
  for (std::size_t g = 0; g < groups; ++g) {
    switch (selector.group_score()) {
      case GroupScore::Norm: result.scores[g] = std::sqrt(squares[g]); break;
      case GroupScore::Sum: result.scores[g] = sum[g]; break;
      case GroupScore::Shared: result.scores[g] = sizes[g] > 0 ? largest[g] : 0.0; break;
    }
    has_columns[g] = sizes[g] > 0 ? 1.0 : 0.0;
  }
  result.frequency = std::move(frequency);
  finish_selection(result, data.group_names, has_columns);
  const char* rule = group_rule(selector.group_score());
  const std::string what = fmt::format(
      "selected {} whole groups of {} (a group: a column of the table with its encoded columns, or "
      "a group of {})",
      k_groups, usable, option_ref("groups"));
  result.notes.push_back(
      selector.selects_groups()
          ? fmt::format("{}: {} was fitted on {} columns and keeps or drops whole groups in its "
                        "training (group score: the {} of its columns' scores)",
                        what, result.method, data.cols(), rule)
          : fmt::format("{}: {} was fitted on {} columns with k = {} (k times the groups' mean "
                        "width) and each group scored by the {} of its columns' scores",
                        what, result.method, data.cols(), k_columns, rule));
  return result;
}

}  // namespace topkfs
