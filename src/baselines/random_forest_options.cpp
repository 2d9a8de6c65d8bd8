// The random-forest selector's options: checks with the command-line names,
// and the table that feeds CLI flags, Python keywords and docs.
#include <fmt/format.h>

#include "topkfs/baselines/random_forest_selector.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/core/thread_count.hpp"

namespace topkfs {

void RandomForestSelectorOptions::validate() const {
  auto fail = [](const std::string& message) { throw OptionError(message); };
  if (n_estimators < 1)
    fail(fmt::format("{} must be at least 1, got {}", option_ref("n-estimators"), n_estimators));
  if (min_samples_leaf < 1) {
    fail(fmt::format("{} must be at least 1, got {}", option_ref("min-samples-leaf"),
                     min_samples_leaf));
  }
  if (max_depth < 0) {
    fail(fmt::format("{} must be at least 1, or 0 for unlimited; got {}", option_ref("max-depth"),
                     max_depth));
  }
  check_thread_count(threads);
  forest_options();
}

ForestOptions RandomForestSelectorOptions::forest_options() const {
  ForestOptions options;
  options.kind = kind;
  options.criterion = criterion;
  options.max_features = max_features;
  options.n_estimators = n_estimators;
  options.min_samples_leaf = min_samples_leaf;
  options.max_depth = max_depth;
  options.seed = seed;
  options.threads = threads;
  options.validate();
  return options;
}

const OptionTable<RandomForestSelectorOptions>& random_forest_option_table() {
  using O = RandomForestSelectorOptions;
  static const OptionTable<O> table = [] {
    OptionTable<O> t;
    t.add("n-estimators", &O::n_estimators,
          "Trees in the forest (scikit-learn's default; more trees give steadier importances)")
        .add("max-features", &O::max_features,
             "Split candidates per node: auto (sqrt(m) for classes, all m for real targets, as "
             "scikit-learn), sqrt, log2, all, a count (12) or a fraction (0.3)")
        .add("min-samples-leaf", &O::min_samples_leaf, "Fewest training samples in a leaf")
        .add("max-depth", &O::max_depth, "Deepest tree allowed (0 = grow until leaves are pure)")
        .add("criterion", &O::criterion,
             "Impurity: auto (gini for classes, squared_error for real targets), gini, entropy, "
             "squared_error")
        .add("kind", &O::kind,
             "random-forest (best split of each candidate, bootstrap) or extra-trees (one random "
             "threshold per candidate, no bootstrap)")
        .add("seed", &O::seed, "Seed of the trees' randomness (tree t uses stream t)")
        .add("threads", &O::threads,
             "Threads growing trees (0 = every core); the forest is the same for any count");
    return t;
  }();
  return table;
}

}  // namespace topkfs
