// The forests (trees/forest.hpp): option checks, invariants of the grown
// trees checked by routing the training rows through them (leaf sizes, depth,
// ExtraTrees thresholds inside the node's range), the exact optimal root
// split of a random forest without randomness, determinism across thread
// counts, fitting on a row/column subset equal to fitting on a copy, and the
// agreement with scikit-learn (tests/trees/sklearn_forest.py) in accuracy on
// MNIST, Fashion-MNIST and USPS and in R^2 on Friedman's regression problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>

#include "test_support.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/synthetic.hpp"
#include "topkfs/io/read_dataset.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs {
namespace {

// n x m uniform features; the label is the quadrant of (x0, x1) (4 classes)
// plus 5% label noise.
Dataset quadrant_classes(std::int64_t n, std::int64_t m, std::uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.source = "quadrants";
  data.features.resize(n, m);
  data.target_kind = TargetKind::Classes;
  data.class_names = {"a", "b", "c", "d"};
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) data.features(i, j) = static_cast<float>(rng.uniform());
    std::int32_t label =
        (data.features(i, 0) > 0.5F ? 1 : 0) + (data.features(i, 1) > 0.5F ? 2 : 0);
    if (rng.uniform() < 0.05) label = static_cast<std::int32_t>(rng.uniform_index(4));
    data.labels.push_back(label);
  }
  for (std::int64_t j = 0; j < m; ++j) data.feature_names.push_back("x" + std::to_string(j));
  return data;
}

// n x m small integers, mostly 0 (as the pixels of an image border), and a
// label from a few of them: features are often constant within a node, which
// exercises the bookkeeping of constant features. Rows may repeat.
Dataset sparse_integers(std::int64_t n, std::int64_t m, std::uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.source = "sparse integers";
  data.features.resize(n, m);
  data.target_kind = TargetKind::Classes;
  data.class_names = {"0", "1", "2"};
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      data.features(i, j) =
          rng.uniform() < 0.7 ? 0.0F : static_cast<float>(1 + rng.uniform_index(3));
    }
    const float score = data.features(i, 0) + data.features(i, 1) - data.features(i, 2);
    std::int32_t label = score > 1.0F ? 2 : (score > -1.0F ? 1 : 0);
    if (rng.uniform() < 0.15) label = static_cast<std::int32_t>(rng.uniform_index(3));
    data.labels.push_back(label);
  }
  for (std::int64_t j = 0; j < m; ++j) data.feature_names.push_back("x" + std::to_string(j));
  return data;
}

// Friedman's problem #1 (scikit-learn's make_friedman1): 10 uniform features,
// y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 + 10 x3 + 5 x4 + noise N(0, 1); the
// last five features are noise. `outputs` copies of y as target columns.
Dataset friedman(std::int64_t n, std::uint64_t seed, int outputs = 1) {
  Rng rng(seed);
  Dataset data;
  data.source = "friedman1";
  data.features.resize(n, 10);
  data.target_kind = TargetKind::Real;
  data.targets.resize(n, outputs);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < 10; ++j) data.features(i, j) = static_cast<float>(rng.uniform());
    const auto x = [&](int j) { return static_cast<double>(data.features(i, j)); };
    const double y = 10.0 * std::sin(3.14159265358979323846 * x(0) * x(1)) +
                     20.0 * (x(2) - 0.5) * (x(2) - 0.5) + 10.0 * x(3) + 5.0 * x(4) + rng.normal();
    for (int o = 0; o < outputs; ++o) data.targets(i, o) = y;
  }
  for (int j = 0; j < 10; ++j) data.feature_names.push_back("x" + std::to_string(j));
  for (int o = 0; o < outputs; ++o) data.target_names.push_back("y" + std::to_string(o));
  return data;
}

// Row `row` of `data` in the fitted columns of `forest`.
std::vector<float> fitted_values(const Forest& forest, const Dataset& data, std::int64_t row) {
  std::vector<float> x;
  for (const auto column : forest.columns()) x.push_back(data.features(row, column));
  return x;
}

// Per node of `tree`: how many of `rows` reach it, and the range of the
// node's split feature over them.
struct NodeVisits {
  std::vector<std::int64_t> count;
  std::vector<float> low;
  std::vector<float> high;
};

NodeVisits route(const Forest& forest, const DecisionTree& tree, const Dataset& data,
                 const std::vector<std::int64_t>& rows) {
  NodeVisits visits;
  const auto size = tree.nodes.size();
  visits.count.assign(size, 0);
  visits.low.assign(size, std::numeric_limits<float>::infinity());
  visits.high.assign(size, -std::numeric_limits<float>::infinity());
  for (const auto row : rows) {
    const auto x = fitted_values(forest, data, row);
    std::size_t n = 0;
    for (;;) {
      ++visits.count[n];
      const TreeNode& node = tree.nodes[n];
      if (node.feature < 0) break;
      const float v = x[static_cast<std::size_t>(node.feature)];
      visits.low[n] = std::min(visits.low[n], v);
      visits.high[n] = std::max(visits.high[n], v);
      n = static_cast<std::size_t>(node.child + (v > node.threshold ? 1 : 0));
    }
  }
  return visits;
}

// ---------------------------------------------------------------- options

TEST(ForestOptionsTest, DefaultsMirrorScikitLearn) {
  const ForestOptions options;
  EXPECT_EQ(options.kind, ForestKind::ExtraTrees);
  EXPECT_EQ(options.n_estimators, 100);
  EXPECT_EQ(options.min_samples_split, 2);
  EXPECT_EQ(options.min_samples_leaf, 1);
  EXPECT_EQ(options.max_depth, 0);
  EXPECT_FALSE(options.uses_bootstrap());
  EXPECT_TRUE(ForestOptions::random_forest().uses_bootstrap());
  EXPECT_EQ(options.max_features.resolve(50, TargetKind::Classes), 7);  // sqrt
  EXPECT_EQ(options.max_features.resolve(784, TargetKind::Classes), 28);
  EXPECT_EQ(options.max_features.resolve(50, TargetKind::Real), 50);  // 1.0
  EXPECT_NO_THROW(options.validate());
}

TEST(ForestOptionsTest, ValidateNamesTheField) {
  const auto message = [](const std::function<void(ForestOptions&)>& change) {
    ForestOptions options;
    change(options);
    try {
      options.validate();
    } catch (const OptionError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([](auto& o) { o.n_estimators = 0; }).find("n_estimators"), std::string::npos);
  EXPECT_NE(message([](auto& o) { o.min_samples_split = 1; }).find("min_samples_split"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.min_samples_leaf = 0; }).find("min_samples_leaf"),
            std::string::npos);
  EXPECT_NE(message([](auto& o) { o.max_depth = -1; }).find("max_depth"), std::string::npos);
  EXPECT_NE(message([](auto& o) { o.threads = -2; }).find("threads"), std::string::npos);
  EXPECT_NE(
      message([](auto& o) { o.max_features = MaxFeatures::fraction(1.5); }).find("max_features"),
      std::string::npos);
  EXPECT_NE(message([](auto& o) { o.max_features = MaxFeatures::count(0); }).find("max_features"),
            std::string::npos);
}

TEST(ForestOptionsTest, MaxFeaturesParsesAndResolves) {
  EXPECT_EQ(MaxFeatures::parse("sqrt").resolve(50, TargetKind::Real), 7);
  EXPECT_EQ(MaxFeatures::parse("log2").resolve(50, TargetKind::Classes), 5);
  EXPECT_EQ(MaxFeatures::parse("all").resolve(50, TargetKind::Classes), 50);
  EXPECT_EQ(MaxFeatures::parse("None").resolve(50, TargetKind::Classes), 50);
  EXPECT_EQ(MaxFeatures::parse("0.5").resolve(51, TargetKind::Classes), 25);
  EXPECT_EQ(MaxFeatures::parse("0.001").resolve(50, TargetKind::Classes), 1);
  EXPECT_EQ(MaxFeatures::parse("1").resolve(50, TargetKind::Classes), 1);     // a count
  EXPECT_EQ(MaxFeatures::parse("1.0").resolve(50, TargetKind::Classes), 50);  // a fraction
  EXPECT_EQ(MaxFeatures::parse("12").resolve(50, TargetKind::Classes), 12);
  EXPECT_EQ(MaxFeatures::parse("12").to_string(), "12");
  EXPECT_EQ(MaxFeatures::parse("0.25").to_string(), "0.25");
  EXPECT_EQ(MaxFeatures::parse("AUTO").to_string(), "auto");
  for (const char* bad : {"", "0", "-3", "1.5", "0.0", "sqr", "7x", "2.5e"}) {
    EXPECT_THROW(MaxFeatures::parse(bad), OptionError) << bad;
  }
  EXPECT_THROW(MaxFeatures::count(60).resolve(50, TargetKind::Classes), OptionError);
  EXPECT_EQ(parse_forest_kind("RF"), ForestKind::RandomForest);
  EXPECT_EQ(parse_forest_kind("extra-trees"), ForestKind::ExtraTrees);
  EXPECT_THROW(parse_forest_kind("gbm"), OptionError);
  EXPECT_EQ(parse_split_criterion("mse"), SplitCriterion::SquaredError);
  EXPECT_THROW(parse_split_criterion("gain"), OptionError);
}

TEST(ForestTest, FitAndPredictRefuseBadInput) {
  const Dataset data = quadrant_classes(100, 4, 1);
  const auto rows = test::iota_rows(100);
  Forest forest(ForestOptions::extra_trees(5));
  EXPECT_THROW(forest.predict_proba(data.features, rows), OptionError);  // not fitted
  Dataset unlabelled = data;
  unlabelled.target_kind = TargetKind::None;
  EXPECT_THROW(forest.fit(unlabelled, rows), DataError);
  EXPECT_THROW(forest.fit(data, {}), OptionError);
  EXPECT_THROW(forest.fit(data, {0, 100}), OptionError);
  EXPECT_THROW(forest.fit(data, rows, {0, 4}), OptionError);
  ForestOptions wrong = ForestOptions::extra_trees(5);
  wrong.criterion = SplitCriterion::SquaredError;
  try {
    Forest(wrong).fit(data, rows);
    ADD_FAILURE() << "squared_error on class labels was accepted";
  } catch (const OptionError& error) {
    EXPECT_NE(std::string(error.what()).find("criterion"), std::string::npos) << error.what();
  }
  ForestOptions too_many = ForestOptions::extra_trees(5);
  too_many.max_features = MaxFeatures::count(5);
  EXPECT_THROW(Forest(too_many).fit(data, rows), OptionError);

  forest.fit(data, rows);
  EXPECT_THROW(forest.predict_values(data.features, rows), OptionError);  // classes, not values
  EXPECT_THROW(forest.predict_proba(data.features, {100}), OptionError);
  const FeatureMatrix narrow = data.features.leftCols(2);
  EXPECT_THROW(forest.predict_proba(narrow, {0}), OptionError);
  EXPECT_EQ(forest.predict_proba(data.features, {}).rows(), 0);  // no rows, no error
  EXPECT_TRUE(forest.predict_classes(data.features, {}).empty());
}

// ---------------------------------------------------------------- invariants

TEST(ForestTest, FullyGrownTreesReproduceDistinctTrainingRows) {
  const Dataset data = quadrant_classes(300, 5, 2);
  const auto rows = test::iota_rows(300);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    ForestOptions options;
    options.kind = kind;
    options.n_estimators = 10;
    options.bootstrap = false;
    Forest forest(options);
    forest.fit(data, rows);
    // Every leaf is pure, so each tree and the forest give probability 1 to the
    // training label of each (distinct) training row.
    const ProbabilityMatrix proba = forest.predict_proba(data.features, rows);
    for (std::int64_t i = 0; i < 300; ++i) {
      ASSERT_DOUBLE_EQ(proba(i, data.labels[static_cast<std::size_t>(i)]), 1.0) << to_string(kind);
    }
    for (const auto& tree : forest.trees()) {
      EXPECT_EQ(tree.min_leaf_samples, 1);
      EXPECT_EQ(static_cast<std::size_t>(tree.leaves) * 2 - 1, tree.nodes.size());
      EXPECT_TRUE(tree.values.empty());  // pure leaves store no values
    }
  }
}

TEST(ForestTest, GrownTreesRespectLeafSizeDepthAndTheNodeRange) {
  const Dataset data = quadrant_classes(500, 6, 3);
  const auto rows = test::iota_rows(500);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    for (const int min_leaf : {1, 7}) {
      ForestOptions options;
      options.kind = kind;
      options.n_estimators = 8;
      options.bootstrap = false;
      options.min_samples_leaf = min_leaf;
      options.min_samples_split = 20;
      options.max_depth = min_leaf == 1 ? 0 : 6;
      options.seed = 5;
      Forest forest(options);
      forest.fit(data, rows);
      SCOPED_TRACE(std::string(to_string(kind)) + " min_samples_leaf " + std::to_string(min_leaf));
      for (const auto& tree : forest.trees()) {
        if (options.max_depth > 0) {
          EXPECT_LE(tree.depth, options.max_depth);
        }
        EXPECT_GE(tree.min_leaf_samples, min_leaf);
        const NodeVisits visits = route(forest, tree, data, rows);
        EXPECT_EQ(visits.count[0], 500);
        for (std::size_t n = 0; n < tree.nodes.size(); ++n) {
          const TreeNode& node = tree.nodes[n];
          EXPECT_GE(visits.count[n], min_leaf);
          if (node.feature < 0) continue;
          EXPECT_GE(visits.count[n], options.min_samples_split);
          // The threshold separates the node's values: never below their
          // minimum, always below their maximum (both children non-empty).
          EXPECT_GE(node.threshold, visits.low[n]);
          EXPECT_LT(node.threshold, visits.high[n]);
        }
      }
    }
  }
}

// Rows of `rows` reaching each node of `tree`.
std::vector<std::vector<std::int64_t>> rows_per_node(const Forest& forest, const DecisionTree& tree,
                                                     const Dataset& data,
                                                     const std::vector<std::int64_t>& rows) {
  std::vector<std::vector<std::int64_t>> reached(tree.nodes.size());
  for (const auto row : rows) {
    const auto x = fitted_values(forest, data, row);
    std::size_t n = 0;
    for (;;) {
      reached[n].push_back(row);
      const TreeNode& node = tree.nodes[n];
      if (node.feature < 0) break;
      n = static_cast<std::size_t>(
          node.child + (x[static_cast<std::size_t>(node.feature)] > node.threshold ? 1 : 0));
    }
  }
  return reached;
}

// Grown without limits, a leaf holds one class, or rows that no feature
// tells apart (a leaf with two classes and distinct rows means a usable
// feature was skipped, e.g. wrongly remembered as constant).
TEST(ForestTest, UnlimitedLeavesArePureUnlessTheirRowsAreEqual) {
  const Dataset data = sparse_integers(600, 14, 9);
  const auto rows = test::iota_rows(600);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    for (const char* max_features : {"sqrt", "all"}) {
      ForestOptions options;
      options.kind = kind;
      options.n_estimators = 10;
      options.bootstrap = false;
      options.max_features = MaxFeatures::parse(max_features);
      Forest forest(options);
      forest.fit(data, rows);
      int mixed = 0;
      for (const auto& tree : forest.trees()) {
        const auto reached = rows_per_node(forest, tree, data, rows);
        for (std::size_t n = 0; n < tree.nodes.size(); ++n) {
          if (tree.nodes[n].feature >= 0) continue;
          const auto& leaf_rows = reached[n];
          for (const auto row : leaf_rows) {
            if (data.labels[static_cast<std::size_t>(row)] ==
                data.labels[static_cast<std::size_t>(leaf_rows[0])])
              continue;
            ++mixed;
            EXPECT_EQ(data.features.row(row), data.features.row(leaf_rows[0]))
                << to_string(kind) << " max_features " << max_features << ": a leaf of "
                << leaf_rows.size() << " rows holds two classes and distinct rows";
            break;
          }
        }
      }
      EXPECT_GT(mixed, 0);  // the data does repeat rows with different labels
    }
  }
}

// With every feature a candidate and no bootstrap, a random forest's root is
// the best split there is: compare with a brute-force search. 400 rows: the
// root's values are radix-sorted (std::sort below 256 rows).
TEST(ForestTest, RandomForestRootIsTheBestSplit) {
  for (const auto criterion :
       {SplitCriterion::Gini, SplitCriterion::Entropy, SplitCriterion::SquaredError}) {
    const bool classes = criterion != SplitCriterion::SquaredError;
    Dataset data = classes ? quadrant_classes(400, 4, 7) : friedman(400, 7);
    // Negative values too: the sort keys map the float bits of both signs.
    data.features.array() -= 0.5F;
    const std::int64_t n = data.rows();
    ForestOptions options = ForestOptions::random_forest(1);
    options.bootstrap = false;
    options.max_features = MaxFeatures::parse("all");
    options.criterion = criterion;
    Forest forest(options);
    forest.fit(data, test::iota_rows(n));
    const TreeNode& root = forest.trees()[0].nodes[0];

    // Impurity of a side, times its size.
    const auto weighted_impurity = [&](const std::vector<std::int64_t>& side) {
      const auto size = static_cast<double>(side.size());
      if (!classes) {
        double sum = 0.0, squares = 0.0;
        for (const auto i : side) {
          sum += data.targets(i, 0);
          squares += data.targets(i, 0) * data.targets(i, 0);
        }
        return squares - sum * sum / size;
      }
      std::vector<double> counts(4, 0.0);
      for (const auto i : side)
        counts[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(i)])] += 1.0;
      double impurity = criterion == SplitCriterion::Gini ? 1.0 : 0.0;
      for (const double c : counts) {
        const double p = c / size;
        impurity += criterion == SplitCriterion::Gini ? -p * p : (p > 0 ? -p * std::log(p) : 0.0);
      }
      return size * impurity;
    };
    double best = std::numeric_limits<double>::infinity();
    int best_feature = -1;
    double best_threshold = 0.0;
    for (int j = 0; j < 4; ++j) {
      std::vector<float> values;
      for (std::int64_t i = 0; i < n; ++i) values.push_back(data.features(i, j));
      std::sort(values.begin(), values.end());
      for (std::size_t p = 0; p + 1 < values.size(); ++p) {
        if (values[p + 1] == values[p]) continue;
        const double threshold = values[p] / 2.0 + values[p + 1] / 2.0;
        std::vector<std::int64_t> left, right;
        for (std::int64_t i = 0; i < n; ++i)
          (data.features(i, j) <= threshold ? left : right).push_back(i);
        const double total = weighted_impurity(left) + weighted_impurity(right);
        if (total < best - 1e-9) {
          best = total;
          best_feature = j;
          best_threshold = threshold;
        }
      }
    }
    SCOPED_TRACE(to_string(criterion));
    EXPECT_EQ(root.feature, best_feature);
    EXPECT_NEAR(root.threshold, best_threshold, 1e-6);
  }
}

// The same, at every node of a tree on data where features are often
// constant within a node: each split achieves the least impurity of all
// splits of that node's rows (ties make the feature itself ambiguous).
TEST(ForestTest, RandomForestEverySplitIsTheBestOfItsNode) {
  const Dataset data = sparse_integers(500, 12, 3);
  ForestOptions options = ForestOptions::random_forest(3);
  options.bootstrap = false;
  options.max_features = MaxFeatures::parse("all");
  Forest forest(options);
  const auto rows = test::iota_rows(500);
  forest.fit(data, rows);
  const auto gini_mass = [&](const std::vector<std::int64_t>& side) {
    std::vector<double> counts(3, 0.0);
    for (const auto i : side)
      counts[static_cast<std::size_t>(data.labels[static_cast<std::size_t>(i)])] += 1.0;
    double squares = 0.0;
    for (const double c : counts) squares += c * c;
    return static_cast<double>(side.size()) - squares / static_cast<double>(side.size());
  };
  int checked = 0;
  for (const auto& tree : forest.trees()) {
    const auto reached = rows_per_node(forest, tree, data, rows);
    for (std::size_t n = 0; n < tree.nodes.size(); ++n) {
      const TreeNode& node = tree.nodes[n];
      if (node.feature < 0) continue;
      const auto left = static_cast<std::size_t>(node.child);
      const double chosen = gini_mass(reached[left]) + gini_mass(reached[left + 1]);
      double best = std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < data.cols(); ++j) {
        for (const float threshold : {0.5F, 1.5F, 2.5F}) {  // every split of values 0..3
          std::vector<std::int64_t> l, r;
          for (const auto i : reached[n]) (data.features(i, j) <= threshold ? l : r).push_back(i);
          if (!l.empty() && !r.empty()) best = std::min(best, gini_mass(l) + gini_mass(r));
        }
      }
      EXPECT_NEAR(chosen, best, 1e-9) << "node " << n << " of " << reached[n].size() << " rows";
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(ForestTest, SameForestForAnyThreadCount) {
  const Dataset data = quadrant_classes(400, 8, 4);
  const auto train = test::iota_rows(300);
  const auto test = test::iota_rows(100, 300);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    ForestOptions options;
    options.kind = kind;
    options.n_estimators = 24;
    options.seed = 42;
    options.threads = 1;
    Forest one(options);
    one.fit(data, train);
    options.threads = 3;
    Forest three(options);
    three.fit(data, train);
    EXPECT_EQ(one.predict_proba(data.features, test), three.predict_proba(data.features, test));
    EXPECT_EQ(one.feature_importances(), three.feature_importances());
    ASSERT_EQ(one.trees().size(), three.trees().size());
    for (std::size_t t = 0; t < one.trees().size(); ++t) {
      EXPECT_EQ(one.trees()[t].nodes.size(), three.trees()[t].nodes.size());
    }
    options.seed = 43;
    Forest other(options);
    other.fit(data, train);
    EXPECT_NE(one.predict_proba(data.features, test), other.predict_proba(data.features, test));
  }
}

// Rows and columns given by index must give the forest that a copy of those
// rows and columns gives.
TEST(ForestTest, SubsetByIndexEqualsFittingACopy) {
  const Dataset data = quadrant_classes(400, 10, 5);
  std::vector<std::int64_t> train;
  for (std::int64_t i = 0; i < 400; i += 2) train.push_back(i);
  const std::vector<std::int64_t> columns = {7, 1, 0, 4};
  Forest by_index(ForestOptions::random_forest(12));
  by_index.fit(data, train, columns);
  EXPECT_EQ(by_index.columns(), columns);

  const Dataset copy = take_columns(take_rows(data, train), columns);
  Forest on_copy(ForestOptions::random_forest(12));
  on_copy.fit(copy, test::iota_rows(copy.rows()));

  std::vector<std::int64_t> test;
  for (std::int64_t i = 1; i < 400; i += 2) test.push_back(i);
  const Dataset test_copy = take_columns(take_rows(data, test), columns);
  EXPECT_EQ(by_index.predict_proba(data.features, test),
            on_copy.predict_proba(test_copy.features, test::iota_rows(test_copy.rows())));
  EXPECT_EQ(by_index.feature_importances(), on_copy.feature_importances());
}

TEST(ForestTest, ProbabilitiesAreAveragesOfLeafProportions) {
  const Dataset data = quadrant_classes(300, 4, 6);
  ForestOptions options = ForestOptions::extra_trees(7);
  options.min_samples_leaf = 10;
  Forest forest(options);
  forest.fit(data, test::iota_rows(200));
  const auto test = test::iota_rows(100, 200);
  const ProbabilityMatrix proba = forest.predict_proba(data.features, test);
  const auto predicted = forest.predict_classes(data.features, test);
  for (Eigen::Index i = 0; i < proba.rows(); ++i) {
    EXPECT_NEAR(proba.row(i).sum(), 1.0, 1e-12);
    // Rebuild the average from the leaves themselves.
    const auto x = fitted_values(forest, data, test[static_cast<std::size_t>(i)]);
    std::vector<double> expected(4, 0.0);
    for (const auto& tree : forest.trees()) {
      const TreeNode& leaf = tree.leaf(x.data());
      for (int c = 0; c < 4; ++c) {
        expected[static_cast<std::size_t>(c)] +=
            leaf.feature == DecisionTree::kPureLeaf
                ? (leaf.child == c ? 1.0 : 0.0)
                : tree.values[static_cast<std::size_t>(leaf.child + c)];
      }
    }
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(proba(i, c), expected[static_cast<std::size_t>(c)] / 7.0, 1e-12);
    Eigen::Index best = 0;
    proba.row(i).maxCoeff(&best);
    EXPECT_EQ(predicted[static_cast<std::size_t>(i)], best);
  }
  EXPECT_GT(
      accuracy(std::vector<std::int32_t>(data.labels.begin() + 200, data.labels.end()), predicted),
      0.75);
}

TEST(ForestTest, ImportancesRankPlantedFeaturesFirstAndSumToOne) {
  SyntheticOptions synthetic;
  synthetic.samples = 1500;
  synthetic.features = 30;
  synthetic.informative = 4;
  synthetic.correlated_decoys = 0;
  synthetic.relation = SyntheticOptions::Relation::Nonlinear;
  synthetic.seed = 11;
  for (const auto target : {SyntheticOptions::Target::Classes, SyntheticOptions::Target::Real}) {
    synthetic.target = target;
    const SyntheticData made = make_synthetic(synthetic);
    for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
      ForestOptions options;
      options.kind = kind;
      options.n_estimators = 60;
      Forest forest(options);
      forest.fit(made.data, test::iota_rows(made.data.rows()));
      const auto& importances = forest.feature_importances();
      ASSERT_EQ(importances.size(), 30U);
      EXPECT_NEAR(std::accumulate(importances.begin(), importances.end(), 0.0), 1.0, 1e-12);
      for (const auto& tree : forest.trees()) {
        EXPECT_NEAR(std::accumulate(tree.importances.begin(), tree.importances.end(), 0.0), 1.0,
                    1e-12);
      }
      std::vector<std::int64_t> order = test::iota_rows(30);
      std::sort(order.begin(), order.end(), [&](auto a, auto b) {
        return importances[static_cast<std::size_t>(a)] > importances[static_cast<std::size_t>(b)];
      });
      std::vector<std::int64_t> top(order.begin(), order.begin() + 4);
      std::sort(top.begin(), top.end());
      EXPECT_EQ(top, made.informative)
          << to_string(kind) << (target == SyntheticOptions::Target::Real ? " real" : " classes");
    }
  }
}

TEST(ForestTest, RegressionWithCopiedOutputsRepeatsTheSingleOutput) {
  const Dataset one = friedman(600, 8, 1);
  const Dataset two = friedman(600, 8, 2);
  const auto train = test::iota_rows(400);
  const auto test = test::iota_rows(200, 400);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    ForestOptions options;
    options.kind = kind;
    options.n_estimators = 20;
    Forest single(options);
    single.fit(one, train);
    Forest pair(options);
    pair.fit(two, train);
    const TargetMatrix p1 = single.predict_values(one.features, test);
    const TargetMatrix p2 = pair.predict_values(two.features, test);
    ASSERT_EQ(p2.cols(), 2);
    EXPECT_EQ(p2.col(0), p1.col(0));
    EXPECT_EQ(p2.col(1), p1.col(0));
    const TargetMatrix truth = one.targets.bottomRows(200);
    EXPECT_GT(r2_score(truth, p1), 0.75) << to_string(kind);
  }
}

// ---------------------------------------------------------------- scikit-learn

std::string sklearn_script() { return test::fixture("../trees/sklearn_forest.py"); }

// The value after `key` on the last line of `out` starting with it.
double value_after(const std::string& out, const std::string& key) {
  std::istringstream lines(out);
  std::string line;
  double value = std::numeric_limits<double>::quiet_NaN();
  while (std::getline(lines, line)) {
    if (line.rfind(key + " ", 0) == 0) value = std::stod(line.substr(key.size() + 1));
  }
  return value;
}

// 50 evenly spaced columns centred in the row: start + step * i with
// step = m / 50, start = (m - 49 step) / 2. MNIST and Fashion-MNIST (m = 784):
// 24, 39, ..., 759, spread over the image; USPS (m = 256): 5, 10, ..., 250.
// bench/speed/trees_bench.cpp uses the same set.
std::vector<std::int64_t> spread_columns(std::int64_t m) {
  const std::int64_t step = m / 50;
  const std::int64_t start = (m - step * 49) / 2;
  std::vector<std::int64_t> columns;
  for (std::int64_t i = 0; i < 50; ++i) columns.push_back(start + step * i);
  return columns;
}

std::string join(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const auto v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

struct ForestScore {
  double accuracy = 0.0;            // mean over seeds
  double nodes = 0.0;               // mean per tree
  std::vector<double> importances;  // mean over seeds
};

// Mean test accuracy over seeds 0..4 of 50 trees on the spread columns.
ForestScore our_accuracy(const Dataset& data, ForestKind kind) {
  const Split& split = *data.predefined_split;
  std::vector<std::int32_t> truth;
  for (const auto row : split.test) truth.push_back(data.labels[static_cast<std::size_t>(row)]);
  ForestScore score;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    ForestOptions options;
    options.kind = kind;
    options.n_estimators = 50;
    options.seed = seed;
    options.threads = 2;
    Forest forest(options);
    forest.fit(data, split.train, spread_columns(data.cols()));
    score.accuracy += accuracy(truth, forest.predict_classes(data.features, split.test)) / 5.0;
    for (const auto& tree : forest.trees())
      score.nodes += static_cast<double>(tree.nodes.size()) / 250.0;
    score.importances.resize(forest.feature_importances().size());
    for (std::size_t j = 0; j < score.importances.size(); ++j) {
      score.importances[j] += forest.feature_importances()[j] / 5.0;
    }
  }
  return score;
}

// Also compares the importances when `check_importances`.
void expect_accuracy_agreement(const std::string& folder, const std::string& file, ForestKind kind,
                               bool check_importances = false) {
  const std::string path = test::shared_data(folder) + (file.empty() ? "" : "/" + file);
  const Dataset data = read_dataset(path);
  ASSERT_TRUE(data.predefined_split.has_value());
  const ForestScore ours = our_accuracy(data, kind);
  const auto result = test::run_command(
      std::string(TOPKFS_PYTHON) + " " + sklearn_script() + " accuracy " + path + " " +
      join(spread_columns(data.cols())) + " --trees 50 --seeds 5 --jobs 2 --model " +
      (kind == ForestKind::ExtraTrees ? "et" : "rf"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const double theirs = value_after(result.out, "mean");
  const double their_nodes = value_after(result.out, "nodes");
  std::cout << "[ agreement ] " << folder << " " << to_string(kind)
            << " (50 trees, 50 columns, mean of 5 seeds): "
            << "accuracy topkfs " << ours.accuracy << ", scikit-learn " << theirs
            << "; nodes per tree topkfs " << ours.nodes << ", scikit-learn " << their_nodes << "\n";
  EXPECT_NEAR(ours.accuracy, theirs, 0.01) << folder;
  // The same algorithm grows trees of the same size on average: the mean over
  // 250 trees varies by about 0.2% from seed to seed. (A bug that skipped
  // usable features once made MNIST's trees 6% larger at the same accuracy.)
  EXPECT_NEAR(ours.nodes / their_nodes, 1.0, 0.01) << folder;
  if (check_importances) {
    // Between two of scikit-learn's own 250-tree forests of other seeds, the
    // largest difference over the 50 importances is 0.002 to 0.004 (it
    // shrinks as 1/sqrt(trees): 0.0015 with 2000 trees on each side).
    std::vector<double> theirs_importances;
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("importances ", 0) != 0) continue;
      std::istringstream values(line.substr(12));
      for (std::string value; std::getline(values, value, ',');)
        theirs_importances.push_back(std::stod(value));
    }
    ASSERT_EQ(theirs_importances.size(), ours.importances.size());
    double largest = 0.0;
    double worst = 0.0;
    for (std::size_t j = 0; j < theirs_importances.size(); ++j) {
      largest = std::max(largest, theirs_importances[j]);
      worst = std::max(worst, std::abs(theirs_importances[j] - ours.importances[j]));
    }
    std::cout << "[ agreement ] " << folder << " " << to_string(kind)
              << ": largest |importance difference| " << worst << " (largest importance " << largest
              << ")\n";
    EXPECT_LT(worst, 0.008);
  }
}

TEST(ForestAgreementTest, ExtraTreesAccuracyMatchesScikitLearnOnMnist) {
  TOPKFS_REQUIRE_SHARED_DATA("mnist");
  expect_accuracy_agreement("mnist", "", ForestKind::ExtraTrees);
}

TEST(ForestAgreementTest, ExtraTreesAccuracyMatchesScikitLearnOnFashionMnist) {
  TOPKFS_REQUIRE_SHARED_DATA("fashion-mnist");
  expect_accuracy_agreement("fashion-mnist", "", ForestKind::ExtraTrees);
}

TEST(ForestAgreementTest, ExtraTreesAccuracyMatchesScikitLearnOnUsps) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  expect_accuracy_agreement("usps", "usps.h5", ForestKind::ExtraTrees, true);
}

TEST(ForestAgreementTest, RandomForestAccuracyMatchesScikitLearnOnUsps) {
  TOPKFS_REQUIRE_SHARED_DATA("usps");
  expect_accuracy_agreement("usps", "usps.h5", ForestKind::RandomForest, true);
}

void write_csv(const std::string& path, const Dataset& data,
               const std::vector<std::int64_t>& rows) {
  std::ofstream out(path);
  for (std::int64_t j = 0; j < data.cols(); ++j) out << "x" << j << ",";
  out << "y\n";
  out.precision(9);  // float32 round-trips
  for (const auto i : rows) {
    for (std::int64_t j = 0; j < data.cols(); ++j) out << data.features(i, j) << ",";
    out.precision(17);
    out << data.targets(i, 0) << "\n";
    out.precision(9);
  }
}

TEST(ForestAgreementTest, RegressionR2MatchesScikitLearnOnFriedman) {
  const Dataset data = friedman(3000, 21);
  const auto train = test::iota_rows(2000);
  const auto test = test::iota_rows(1000, 2000);
  const std::string train_csv = test::temp_dir() + "/friedman_train.csv";
  const std::string test_csv = test::temp_dir() + "/friedman_test.csv";
  write_csv(train_csv, data, train);
  write_csv(test_csv, data, test);
  const TargetMatrix truth = data.targets.bottomRows(1000);
  for (const auto kind : {ForestKind::ExtraTrees, ForestKind::RandomForest}) {
    double ours = 0.0;
    for (std::uint64_t seed = 0; seed < 3; ++seed) {
      ForestOptions options;  // 100 trees, max_features 1.0: scikit-learn's regressor defaults
      options.kind = kind;
      options.seed = seed;
      options.threads = 2;
      Forest forest(options);
      forest.fit(data, train);
      ours += r2_score(truth, forest.predict_values(data.features, test)) / 3.0;
    }
    const auto result =
        test::run_command(std::string(TOPKFS_PYTHON) + " " + sklearn_script() + " regression " +
                          train_csv + " " + test_csv + " --trees 100 --seeds 3 --jobs 2 --model " +
                          (kind == ForestKind::ExtraTrees ? "et" : "rf"));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const double theirs = value_after(result.out, "mean_r2");
    std::cout << "[ agreement ] friedman1 " << to_string(kind)
              << " R^2 (100 trees, mean of 3 seeds): topkfs " << ours << ", scikit-learn " << theirs
              << "\n";
    EXPECT_NEAR(ours, theirs, 0.01);
    EXPECT_GT(ours, 0.8);
  }
}

}  // namespace
}  // namespace topkfs
