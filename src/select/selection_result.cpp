#include "topkfs/select/selection_result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/select/selector.hpp"
#include "topkfs/select/top_k.hpp"

namespace topkfs {

std::vector<std::int64_t> rank_by_score(const std::vector<double>& scores,
                                        const std::vector<double>& tie_break) {
  TOPKFS_ASSERT(tie_break.empty() || tie_break.size() == scores.size());
  std::vector<std::int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  // The top-k rule's order on the scores, so that ranking[0..k) is the
  // selection the rule makes; NaN scores last, in index order (stable).
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const double sa = scores[static_cast<std::size_t>(a)];
    const double sb = scores[static_cast<std::size_t>(b)];
    if (std::isnan(sa) || std::isnan(sb)) return !std::isnan(sa) && std::isnan(sb);
    if (sa == sb && !tie_break.empty()) {
      const double ta = tie_break[static_cast<std::size_t>(a)];
      const double tb = tie_break[static_cast<std::size_t>(b)];
      if (ta != tb) return ta > tb;
    }
    return ranks_before(sa, a, sb, b);
  });
  return order;
}

void finish_selection(SelectionResult& result, const std::vector<std::string>& feature_names,
                      const std::vector<double>& tie_break) {
  const auto m = static_cast<int>(result.scores.size());
  TOPKFS_ASSERT(static_cast<int>(feature_names.size()) == m);
  check_k(result.k, m, "the data");
  result.ranking = rank_by_score(result.scores, tie_break);
  result.selected.assign(result.ranking.begin(), result.ranking.begin() + result.k);
  result.selected_names.clear();
  for (auto column : result.selected) {
    result.selected_names.push_back(feature_names[static_cast<std::size_t>(column)]);
  }
}

void check_k(int k, std::int64_t columns, const std::string& source) {
  if (k < 1 || k > columns) {
    throw OptionError(
        fmt::format("--k {} is out of range: {} has {} feature columns", k, source, columns));
  }
}

void Selector::save_model(const std::string& path) const {
  throw OptionError(
      fmt::format("--save-model {}: method {} has no trained model to save", path, name()));
}

}  // namespace topkfs
