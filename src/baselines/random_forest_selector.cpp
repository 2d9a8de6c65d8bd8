// random-forest as a Selector: one forest on the training rows, scores = its
// impurity importances.
#include "topkfs/baselines/random_forest_selector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "baseline_support.hpp"
#include "topkfs/core/clock.hpp"

namespace topkfs {
namespace {

class RandomForestSelector final : public TableSelector<RandomForestSelectorOptions> {
 public:
  RandomForestSelector() : TableSelector(random_forest_option_table()) {}

  std::string name() const override { return "random-forest"; }
  bool ranking_depends_on_k() const override { return false; }
  // Impurity importance is each column's share of the impurity decrease.
  GroupScore group_score() const override { return GroupScore::Sum; }

  SelectionResult fit(const Dataset& data, const std::vector<std::int64_t>& rows, int k,
                      const FitCallbacks& callbacks) override {
    const auto start = Clock::now();
    const ForestOptions forest_options = options_.forest_options();
    baselines_detail::check_fit_request(data, k, name());
    callbacks.info(fmt::format("{}: growing {} trees on {} rows x {} columns", name(),
                               forest_options.n_estimators, rows.size(), data.cols()));
    Forest forest(forest_options);
    forest.fit(data, rows);

    SelectionResult result;
    result.method = name();
    result.k = k;
    result.scores = forest.feature_importances();
    finish_selection(result, data.feature_names);
    result.fit_seconds = seconds_since(start);
    describe(forest, data, result);
    return result;
  }

 private:
  void describe(const Forest& forest, const Dataset& data, SelectionResult& result) const {
    const ForestOptions& used = forest.options();
    const auto& trees = forest.trees();
    double depth = 0.0;
    double leaves = 0.0;
    for (const auto& tree : trees) {
      depth += tree.depth;
      leaves += tree.leaves;
    }
    depth /= static_cast<double>(trees.size());
    leaves /= static_cast<double>(trees.size());
    const auto unused = std::count(result.scores.begin(), result.scores.end(), 0.0);
    result.notes.push_back(fmt::format(
        "scores: impurity-based importance (mean decrease in impurity) of {} {} trees, "
        "normalised to sum 1; {} of {} columns are never split on (score 0, ranked by column "
        "order); trees have {:.1f} levels and {:.0f} leaves on average",
        trees.size(), to_string(used.kind), unused, data.cols(), depth, leaves));
    if (unused > data.cols() - result.k) {
      result.warnings.push_back(fmt::format(
          "only {} columns have a non-zero importance, fewer than k = {}: the rest of the "
          "selection is in column order",
          data.cols() - unused, result.k));
    }
    result.options.update(options_json());
    result.options["max_features_used"] =
        used.max_features.resolve(static_cast<int>(data.cols()), data.target_kind);
    result.options["bootstrap"] = used.uses_bootstrap();
    result.options["mean_depth"] = depth;
    result.options["mean_leaves"] = leaves;
  }
};

}  // namespace

std::unique_ptr<Selector> make_random_forest_selector() {
  return std::make_unique<RandomForestSelector>();
}

}  // namespace topkfs
