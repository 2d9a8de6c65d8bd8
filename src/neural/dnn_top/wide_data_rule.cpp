#include "wide_data_rule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

// The wide-data budget (docs/algorithms.md, "Wide, short data"). With so few
// rows the network fits them with any inputs within a few steps, after which
// the data gradient of w is near 0 and the L1 penalty moves every w_j towards
// 0 by about w's learning rate a step: the ranking is what the penalty leaves
// standing once w has got there. At lr 3e-4 that takes 3300 steps, most of
// the 4000, and early stopping on a handful of validation rows restored
// weights from before it.
struct WideBudget {
  // Every step is a full pass over the rows: 1000 of them reach the same
  // selections as 4000 in a quarter of the time.
  int min_steps = 1000;
  // w travels from its start at 1 to 0 in a tenth of the steps, and then
  // has the rest to settle where the penalty balances the data (3e-3, a
  // third of them, found a third as many planted columns).
  double w_lr = 1e-2;
  // A validation part of 5 to 10 rows decides the best epoch by one or two
  // rows; all rows train and the last weights are kept.
  double validation = 0.0;
  // The network fits a few dozen rows with any set of inputs; the penalty
  // is what makes it choose, and it must outweigh the data gradient of all
  // but the inputs the fit cannot do without (the lasso's penalty grows as
  // sqrt(log(m) / n) for the same reason). Three times the images' value.
  double lambda2 = 0.03;
};

}  // namespace

bool wide_data_rule_applies(const DnnTopOptions& options, std::int64_t rows, std::int64_t inputs) {
  return options.wide == WideRule::Auto && rows > 0 &&
         static_cast<double>(inputs) >= kWideInputsPerRow * static_cast<double>(rows);
}

std::string apply_wide_data_rule(DnnTopOptions& options, const std::set<std::string>& given,
                                 std::int64_t rows, std::int64_t inputs) {
  if (!wide_data_rule_applies(options, rows, inputs)) return {};
  const WideBudget wide;
  std::vector<std::string> changed;
  auto take = [&](const char* name, auto& option, auto value) {
    if (given.count(name) != 0) return;
    option = value;
    changed.push_back(option_ref(name, fmt::format("{:g}", static_cast<double>(value))));
  };
  take("min-steps", options.min_steps, wide.min_steps);
  take("w-lr", options.w_lr, wide.w_lr);
  take("lambda2", options.lambda2, wide.lambda2);
  take("validation", options.validation, wide.validation);
  if (changed.empty()) return {};
  return fmt::format(
      "wide data ({} inputs, {} training rows: {:.0f} per row, at least {:g}): {} ({} keeps "
      "the defaults)",
      inputs, rows, static_cast<double>(inputs) / static_cast<double>(rows), kWideInputsPerRow,
      fmt::join(changed, ", "), option_ref("wide", "off"));
}

}  // namespace topkfs
