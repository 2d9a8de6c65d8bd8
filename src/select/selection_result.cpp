#include "topkfs/select/selection_result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
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
    throw OptionError(fmt::format("{} is out of range: {} has {} feature columns",
                                  option_ref("k", k), source, columns));
  }
}

namespace {

struct KText {
  bool percent = false;
  double value = 0;
};

KText read_k_text(const std::string& text) {
  KText k;
  k.percent = !text.empty() && text.back() == '%';
  const std::string number = k.percent ? text.substr(0, text.size() - 1) : text;
  const char* end = number.data() + number.size();
  const auto parsed = std::from_chars(number.data(), end, k.value);
  const bool read = parsed.ec == std::errc() && parsed.ptr == end && !number.empty();
  const bool fits = k.percent ? k.value > 0 && k.value <= 100
                              : k.value >= 1 && k.value == std::floor(k.value) && k.value <= 1e9;
  if (!read || !fits) {
    throw OptionError(
        fmt::format("{}: takes a whole number from 1, or a percentage of the columns above 0 and "
                    "up to 100% (e.g. 10%)",
                    option_ref("k", text)));
  }
  return k;
}

}  // namespace

void check_k_text(const std::string& text) { read_k_text(text); }

int parse_k(const std::string& text, std::int64_t count, const std::string& source) {
  const KText read = read_k_text(text);
  const int k = read.percent ? static_cast<int>(std::max(
                                   1.0, std::round(read.value * static_cast<double>(count) / 100)))
                             : static_cast<int>(read.value);
  check_k(k, count, source);
  return k;
}

void Selector::save_model(const std::string& path) const {
  throw OptionError(fmt::format("{}: method {} has no trained model to save",
                                option_ref("save-model", path), name()));
}

}  // namespace topkfs
