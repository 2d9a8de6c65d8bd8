#pragma once
// random-forest: features ranked by the impurity-based importance (mean
// decrease in impurity) of a random forest, as scikit-learn's
// RandomForestClassifier/Regressor.feature_importances_ (L. Breiman, "Random
// forests", Machine Learning 45, 2001). The forest is trees/forest.hpp; the
// importances do not depend on k, so one fit ranks every feature.
#include <cstdint>
#include <memory>

#include "topkfs/select/option_table.hpp"
#include "topkfs/select/selector.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs {

struct RandomForestSelectorOptions {
  int n_estimators = 100;    // trees (scikit-learn's default)
  MaxFeatures max_features;  // auto: sqrt(m) for classes, all m for real targets
  int min_samples_leaf = 1;
  int max_depth = 0;                                // 0: unlimited
  SplitCriterion criterion = SplitCriterion::Auto;  // gini for classes, squared_error for real
  ForestKind kind = ForestKind::RandomForest;       // or extra-trees
  std::uint64_t seed = 0;
  int threads = 0;  // 0 = every core; the forest does not depend on it

  // Throws OptionError naming the offending option.
  void validate() const;
  // The forest these options describe (validated).
  ForestOptions forest_options() const;
};

const OptionTable<RandomForestSelectorOptions>& random_forest_option_table();

std::unique_ptr<Selector> make_random_forest_selector();

}  // namespace topkfs
