#include "neural/dnn_top/wide_screen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "neural/dnn_top/wide_data_rule.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/marginal_dependence.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

std::int64_t screen_size(const DnnTopOptions& options, std::int64_t rows, std::int64_t columns,
                         int k, bool grouped) {
  if (options.screen.mode == ScreenSize::Mode::Off) return 0;
  // The CNN body needs every pixel of the image in its place.
  const bool cnn = options.body == DnnTopBody::Cnn;
  std::int64_t keep = 0;
  if (options.screen.mode == ScreenSize::Mode::Auto) {
    // Groups are selected whole; a screen of single columns would split them.
    if (grouped || cnn || !wide_data_rule_applies(options, rows, columns)) return 0;
    keep = std::max<std::int64_t>(
        static_cast<std::int64_t>(std::ceil(kScreenColumnsPerRow * static_cast<double>(rows))),
        2 * static_cast<std::int64_t>(k));
  } else {
    keep = options.screen.columns;
    if (keep < k) {
      throw OptionError(fmt::format("{} keeps fewer columns than {}: give at least k, or {}",
                                    option_ref("screen", keep), option_ref("k", k),
                                    option_ref("screen", "off")));
    }
    if (cnn) {
      throw OptionError(fmt::format(
          "{} keeps some of the pixels, and {} needs every one: use {} or {}", option_ref("screen"),
          option_ref("body", "cnn"), option_ref("screen", "off"), option_ref("body", "mlp")));
    }
    if (grouped) {
      throw OptionError(fmt::format(
          "{} keeps single columns, and this data groups its columns (categorical columns, {}): "
          "use {}",
          option_ref("screen"), option_ref("groups"), option_ref("screen", "off")));
    }
  }
  return keep < columns ? keep : 0;
}

ScreenedData screen_columns(const Dataset& train, const std::vector<std::int64_t>& rows,
                            std::int64_t keep) {
  ScreenedData out;
  out.dependence = marginal_dependence(train, rows);
  std::vector<std::int64_t> order = rank_by_score(out.dependence);
  order.resize(static_cast<std::size_t>(keep));
  std::sort(order.begin(), order.end());
  out.columns = std::move(order);
  out.data = take_rows_and_columns(train, rows, out.columns);
  return out;
}

std::string screen_note(const ScreenedData& screened, std::int64_t columns) {
  return fmt::format(
      "screened: trained on the {} of {} columns that depend most on the target on their own "
      "({}; the others score 0, ranked by that dependence)",
      screened.columns.size(), columns, option_ref("screen"));
}

}  // namespace topkfs
