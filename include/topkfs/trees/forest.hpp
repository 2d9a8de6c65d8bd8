#pragma once
// Decision-tree ensembles for class labels and real targets: extremely
// randomized trees (ExtraTrees) and random forests, with the defaults and the
// split rules of scikit-learn's ExtraTrees*/RandomForest* estimators.
//
// References: P. Geurts, D. Ernst, L. Wehenkel, "Extremely randomized trees",
// Machine Learning 63 (2006); L. Breiman, "Random forests", Machine Learning
// 45 (2001). Algorithms, defaults and measured figures: docs/trees.md.
//
// Each tree draws its randomness from Rng(derive_seed(seed, tree_index)), so a
// seed gives the same forest whatever the number of threads.
#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/data/dataset.hpp"
#include "topkfs/trees/decision_tree.hpp"

namespace topkfs {

enum class ForestKind {
  // At each node, one uniform random threshold per candidate feature between
  // the node's min and max of that feature; the best of these splits wins.
  ExtraTrees,
  // At each node, the best split over the sorted values of each candidate
  // feature (thresholds midway between consecutive distinct values).
  RandomForest,
};

// Impurity measure. Auto: Gini for classes, SquaredError for real targets.
enum class SplitCriterion { Auto, Gini, Entropy, SquaredError };

const char* to_string(ForestKind kind);
EnumNameList<ForestKind> names_of(ForestKind);  // the option table's names
// "extra-trees" (also "extratrees", "et"), "random-forest" (also "rf");
// throws OptionError listing the choices otherwise.
ForestKind parse_forest_kind(const std::string& name);
const char* to_string(SplitCriterion criterion);
EnumNameList<SplitCriterion> names_of(SplitCriterion);
// "auto", "gini", "entropy", "squared_error" (also "mse"); throws OptionError.
SplitCriterion parse_split_criterion(const std::string& name);

// How many features each node draws as split candidates (without replacement).
struct MaxFeatures {
  enum class Rule {
    Auto,      // Sqrt for classes, All for real targets (scikit-learn >= 1.1)
    Sqrt,      // max(1, floor(sqrt(m)))
    Log2,      // max(1, floor(log2(m)))
    All,       // m
    Count,     // `value` features; more than m is an error at fit time
    Fraction,  // max(1, floor(value * m)), value in (0, 1]
  };
  Rule rule = Rule::Auto;
  double value = 0.0;  // Count and Fraction only

  static MaxFeatures count(int features) { return {Rule::Count, static_cast<double>(features)}; }
  static MaxFeatures fraction(double share) { return {Rule::Fraction, share}; }

  // The number of candidates for m fitted columns and a target of `kind`.
  // Throws OptionError when a Count exceeds m.
  int resolve(int m, TargetKind kind) const;
  // "auto", "sqrt", "log2", "all", "12" (a count), "0.3" (a fraction).
  std::string to_string() const;
  // Parses the forms of to_string(), plus "none" for all (scikit-learn's
  // None). As in scikit-learn, "1" is one feature and "1.0" all of them.
  // Throws OptionError naming `what`.
  static MaxFeatures parse(const std::string& text, const std::string& what = "max_features");
  // As an option of a table (select/option_table.hpp: a choice that may be a
  // number): `option` is the option's name.
  static MaxFeatures parse_option(const std::string& option, const std::string& text);
  static std::vector<std::string> choices();  // auto, sqrt, log2, all
};

// Defaults mirror scikit-learn's ExtraTreesClassifier / RandomForestClassifier
// (and the *Regressor versions where they differ).
struct ForestOptions {
  ForestKind kind = ForestKind::ExtraTrees;
  int n_estimators = 100;
  SplitCriterion criterion = SplitCriterion::Auto;
  MaxFeatures max_features;  // Auto: sqrt(m) for classes, m for real targets
  // A node with fewer samples than this is a leaf.
  int min_samples_split = 2;
  // Every leaf keeps at least this many (distinct) training samples; splits
  // that would leave fewer are not considered.
  int min_samples_leaf = 1;
  int max_depth = 0;  // 0: unlimited (grow until leaves are pure or too small)
  // Each tree learns from n draws with replacement of the n training rows
  // (rows drawn several times weigh as many). Unset: the kind's default,
  // true for RandomForest, false for ExtraTrees.
  std::optional<bool> bootstrap;
  std::uint64_t seed = 0;
  int threads = 0;  // 0 = every core; the result does not depend on it

  static ForestOptions extra_trees(int n_estimators = 100);
  static ForestOptions random_forest(int n_estimators = 100);

  bool uses_bootstrap() const { return bootstrap.value_or(kind == ForestKind::RandomForest); }
  // Throws OptionError naming the offending field.
  void validate() const;
};

using ProbabilityMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class Forest {
 public:
  Forest() = default;
  explicit Forest(ForestOptions options) : options_(std::move(options)) {}

  const ForestOptions& options() const { return options_; }

  // Fits on rows `rows` of `data` (the training part of a split), reading
  // only `columns` (empty: every column, in order). The dataset is not
  // copied: only the values the trees read, rows x columns floats (12 MB for
  // the 60000 MNIST training images and 50 columns), are gathered once into
  // a compact block that all trees share.
  // Classes need data.labels, real targets data.targets (several outputs
  // allowed). Throws OptionError for bad options (validate(), a criterion
  // that does not suit the target, max_features above the column count) or
  // rows/columns out of range, DataError for data without a target.
  void fit(const Dataset& data, const std::vector<std::int64_t>& rows,
           const std::vector<std::int64_t>& columns = {});

  bool fitted() const { return !trees_.empty(); }
  TargetKind target_kind() const { return target_kind_; }
  int num_classes() const { return num_classes_; }  // classes: data.num_classes()
  int num_outputs() const { return num_outputs_; }  // real targets
  // The dataset columns the forest was fitted on; TreeNode::feature indexes this.
  const std::vector<std::int64_t>& columns() const { return columns_; }
  const std::vector<DecisionTree>& trees() const { return trees_; }

  // Impurity-based importance of each fitted column (in the order of
  // columns()), as scikit-learn's feature_importances_: each tree's mean
  // decrease in impurity, weighted by the samples reaching a node and
  // normalised to sum 1, averaged over the trees that split at least once,
  // normalised again. All zero when no tree splits.
  const std::vector<double>& feature_importances() const { return importances_; }

  // Predictions for rows `rows` of `features` (a matrix with the columns of
  // the fitted data; only columns() are read; no rows: an empty result).
  // Throw OptionError before a fit or when a row or column is out of range.
  //
  // Classes: rows x num_classes(), the average over trees of each leaf's class
  // proportions (classes absent from the training rows get 0).
  ProbabilityMatrix predict_proba(const FeatureMatrix& features,
                                  const std::vector<std::int64_t>& rows) const;
  // Classes: the most probable class per row (the lowest label on ties).
  std::vector<std::int32_t> predict_classes(const FeatureMatrix& features,
                                            const std::vector<std::int64_t>& rows) const;
  // Real targets: rows x num_outputs(), the average over trees of the leaf means.
  TargetMatrix predict_values(const FeatureMatrix& features,
                              const std::vector<std::int64_t>& rows) const;

 private:
  // Sums, over trees, the leaf values of each row into `out` (rows x width).
  void accumulate_leaves(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                         int width, double* out) const;
  void require_fitted(TargetKind kind, const char* call) const;

  ForestOptions options_;
  TargetKind target_kind_ = TargetKind::None;
  int num_classes_ = 0;
  int num_outputs_ = 0;
  std::vector<std::int64_t> columns_;
  std::vector<DecisionTree> trees_;
  std::vector<double> importances_;
};

}  // namespace topkfs
