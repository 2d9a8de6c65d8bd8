#include "neural/dnn_top/wide_screen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "neural/dnn_top/wide_data_rule.hpp"
#include "topkfs/core/error.hpp"
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
      throw OptionError(fmt::format(
          "--screen {} keeps fewer columns than --k {}: give at least k, or off", keep, k));
    }
    if (cnn) {
      throw OptionError(
          "--screen keeps some of the pixels, and --body cnn needs every one: use "
          "--screen off or --body mlp");
    }
    if (grouped) {
      throw OptionError(
          "--screen keeps single columns, and this data groups its columns (categorical "
          "columns, --groups): use --screen off");
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
      "(--screen; the others score 0, ranked by that dependence)",
      screened.columns.size(), columns);
}

}  // namespace topkfs
