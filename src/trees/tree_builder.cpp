// Growing one tree depth-first, as scikit-learn's DepthFirstTreeBuilder with
// its RandomSplitter (ExtraTrees) or BestSplitter (RandomForest):
//  - the samples of a node are a range of one index array, partitioned in
//    place when the node splits;
//  - candidate features are drawn without replacement until max_features
//    have been looked at and at least one was not constant in the node;
//    features found constant are remembered for the node's descendants,
//    which skip them without reading the data;
//  - ExtraTrees evaluates one uniform threshold per candidate in one pass
//    over the gathered values (no partition per candidate, unlike
//    scikit-learn); RandomForest sorts the node's values of the candidate
//    once and scans every split position with running class counts or sums.
// Weights are integers (bootstrap counts, class counts exact) unless the
// samples carry weights of their own (then doubles).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "tree_builder.hpp"

namespace topkfs::trees_detail {
namespace {

// scikit-learn's FEATURE_THRESHOLD: values closer than this count as equal, so
// a feature spanning less in a node is constant there.
constexpr double kFeatureThreshold = 1e-7;
// A node whose impurity is at most this is pure (scikit-learn's EPSILON).
constexpr double kPureImpurity = std::numeric_limits<double>::epsilon();
constexpr double kNoSplit = -std::numeric_limits<double>::infinity();

// The largest float not above `value`: `x <= result` for a float x holds
// exactly when `x <= value` does, so a float threshold splits like the double.
float float_at_most(double value) {
  auto result = static_cast<float>(value);
  if (static_cast<double>(result) > value) {
    result = std::nextafter(result, -std::numeric_limits<float>::infinity());
  }
  return result;
}

// (value, index) packed into one integer that sorts by value: the float's
// bits mapped to an unsigned integer of the same order in the high half.
std::uint64_t sort_key(float value, std::uint32_t index) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  bits = (bits & 0x80000000U) != 0 ? ~bits : (bits | 0x80000000U);
  return (static_cast<std::uint64_t>(bits) << 32) | index;
}

float key_value(std::uint64_t key) {
  auto bits = static_cast<std::uint32_t>(key >> 32);
  bits = (bits & 0x80000000U) != 0 ? (bits & 0x7fffffffU) : ~bits;
  float value = 0.0F;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::uint32_t key_index(std::uint64_t key) { return static_cast<std::uint32_t>(key); }

// Sorts keys[0..n) by their value half; returns where the sorted keys are
// (keys or scratch). Large nodes: LSD radix sort, one byte of the value per
// pass, skipping bytes that all keys share (integer-valued features such as
// pixels differ in two bytes only). Small nodes: std::sort.
std::uint64_t* sort_keys(std::uint64_t* keys, std::uint64_t* scratch, std::int32_t n) {
  constexpr std::int32_t kRadixFrom = 256;
  if (n < kRadixFrom) {
    std::sort(keys, keys + n);
    return keys;
  }
  std::uint32_t counts[4][256] = {};
  for (std::int32_t i = 0; i < n; ++i) {
    const auto value = static_cast<std::uint32_t>(keys[i] >> 32);
    for (int b = 0; b < 4; ++b) ++counts[b][(value >> (8 * b)) & 0xFFU];
  }
  std::uint64_t* from = keys;
  std::uint64_t* to = scratch;
  for (int b = 0; b < 4; ++b) {
    const auto shift = static_cast<unsigned>(32 + 8 * b);
    if (counts[b][(from[0] >> shift) & 0xFFU] == static_cast<std::uint32_t>(n)) continue;
    std::uint32_t offsets[256];
    std::uint32_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      offsets[d] = sum;
      sum += counts[b][d];
    }
    for (std::int32_t i = 0; i < n; ++i) to[offsets[(from[i] >> shift) & 0xFFU]++] = from[i];
    std::swap(from, to);
  }
  return from;
}

// Midway between two consecutive distinct values, as scikit-learn computes
// it (halves first, so it cannot overflow to infinity).
double midpoint(float low, float high) {
  const double mid = low / 2.0 + high / 2.0;
  return mid == high || std::isinf(mid) ? low : mid;
}

double xlogx(double x) { return x > 0.0 ? x * std::log(x) : 0.0; }

// Class labels with Gini or entropy. Weight is the type of a sample's
// weight and Count of their sums: integers (bootstrap counts, exact and
// fast) or doubles (sample weights, data/sample_weights.hpp).
template <class Weight, class Count>
class ClassTarget {
 public:
  using WeightType = Weight;

  ClassTarget(const TrainingBlock& block, SplitCriterion criterion)
      : labels_(block.labels.data()),
        classes_(block.classes),
        entropy_(criterion == SplitCriterion::Entropy),
        node_labels_(static_cast<std::size_t>(block.samples)),
        node_weights_(static_cast<std::size_t>(block.samples)),
        total_(static_cast<std::size_t>(classes_)),
        left_(static_cast<std::size_t>(classes_)) {}

  // Gathers labels and weights of samples[0..n) (weights per position, or
  // null for all 1) and their class totals.
  void load_node(const std::int32_t* samples, std::int32_t n, const Weight* weights) {
    std::fill(total_.begin(), total_.end(), 0);
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t sample = samples[i];
      const std::int32_t label = labels_[sample];
      const Weight weight = weights != nullptr ? weights[sample] : Weight{1};
      node_labels_[static_cast<std::size_t>(i)] = label;
      node_weights_[static_cast<std::size_t>(i)] = weight;
      total_[static_cast<std::size_t>(label)] += weight;
    }
    weight_ = std::accumulate(total_.begin(), total_.end(), Count{0});
    unit_weights_ = weights == nullptr;
  }

  double weight() const { return static_cast<double>(weight_); }
  bool pure() const { return *std::max_element(total_.begin(), total_.end()) == weight_; }

  double impurity() const {
    const double w = weight();
    double sum = 0.0;
    for (const Count count : total_) {
      const double p = static_cast<double>(count) / w;
      sum += entropy_ ? -xlogx(p) : p * p;
    }
    return entropy_ ? sum : 1.0 - sum;
  }

  // ExtraTrees: the split `values <= threshold` of the node's gathered
  // values. True when both sides keep min_leaf samples and the split beats
  // best_proxy, which it then replaces.
  bool try_threshold(const float* values, std::int32_t n, float threshold, std::int32_t min_leaf,
                     double& best_proxy) {
    const std::int32_t n_left = count_left(values, n, threshold);
    if (n_left < min_leaf || n - n_left < min_leaf) return false;
    const double proxy = children_proxy();
    if (proxy <= best_proxy) return false;
    best_proxy = proxy;
    return true;
  }

  // RandomForest: the best split of the node's samples sorted by one
  // feature (keys from sort_key). True when it beats best_proxy; then
  // best_proxy and threshold hold it.
  bool try_sorted(const std::uint64_t* keys, std::int32_t n, std::int32_t min_leaf,
                  double& best_proxy, double& threshold) {
    std::fill(left_.begin(), left_.end(), 0);
    double sum_left = 0.0;  // Gini: sum of squared counts; entropy: sum of c log c
    double sum_right = 0.0;
    for (const Count count : total_) {
      const auto c = static_cast<double>(count);
      sum_right += entropy_ ? xlogx(c) : c * c;
    }
    Count weight_left = 0;
    bool improved = false;
    for (std::int32_t p = 0; p + 1 < n; ++p) {
      const std::uint32_t i = key_index(keys[p]);
      const auto c = static_cast<std::size_t>(node_labels_[i]);
      const Count w = node_weights_[i];
      const auto l = static_cast<double>(left_[c]);
      const auto r = static_cast<double>(total_[c] - left_[c]);
      const auto wd = static_cast<double>(w);
      if (entropy_) {
        sum_left += xlogx(l + wd) - xlogx(l);
        sum_right += xlogx(r - wd) - xlogx(r);
      } else {
        sum_left += (2.0 * l + wd) * wd;
        sum_right += (wd - 2.0 * r) * wd;
      }
      left_[c] += w;
      weight_left += w;
      const std::int32_t n_left = p + 1;
      if (n_left < min_leaf) continue;
      if (n - n_left < min_leaf) break;
      const float x0 = key_value(keys[p]);
      const float x1 = key_value(keys[p + 1]);
      if (static_cast<double>(x1) <= static_cast<double>(x0) + kFeatureThreshold) continue;
      const auto wl = static_cast<double>(weight_left);
      const auto wr = static_cast<double>(weight_ - weight_left);
      const double proxy =
          entropy_ ? sum_left + sum_right - xlogx(wl) - xlogx(wr) : sum_left / wl + sum_right / wr;
      if (proxy > best_proxy) {
        best_proxy = proxy;
        threshold = midpoint(x0, x1);
        improved = true;
      }
    }
    return improved;
  }

  void write_leaf(DecisionTree& tree, TreeNode& node) const {
    for (int c = 0; c < classes_; ++c) {
      if (total_[static_cast<std::size_t>(c)] == weight_) {
        node.feature = DecisionTree::kPureLeaf;
        node.child = c;
        return;
      }
    }
    node.feature = DecisionTree::kLeaf;
    node.child = static_cast<std::int32_t>(tree.values.size());
    for (const Count count : total_) {
      tree.values.push_back(static_cast<double>(count) / weight());
    }
  }

 private:
  // Fills left_ with the weight per class of the samples with values <=
  // threshold; returns how many samples that is. Four histograms, one per
  // sample of a group of four: with a single one, runs of one class would
  // chain every increment on the previous store.
  std::int32_t count_left(const float* values, std::int32_t n, float threshold) {
    const auto c = static_cast<std::size_t>(classes_);
    histograms_.assign(4 * c, Weight{0});
    Weight* h = histograms_.data();
    const std::int32_t* labels = node_labels_.data();
    const Weight* weights = node_weights_.data();
    std::int32_t n_left = 0;
    std::int32_t i = 0;
    if (unit_weights_) {
      for (; i + 4 <= n; i += 4) {
        for (int u = 0; u < 4; ++u) {
          const std::int32_t goes_left = values[i + u] <= threshold ? 1 : 0;
          h[static_cast<std::size_t>(u) * c + static_cast<std::size_t>(labels[i + u])] += goes_left;
          n_left += goes_left;
        }
      }
    } else {
      for (; i + 4 <= n; i += 4) {
        for (int u = 0; u < 4; ++u) {
          const std::int32_t goes_left = values[i + u] <= threshold ? 1 : 0;
          h[static_cast<std::size_t>(u) * c + static_cast<std::size_t>(labels[i + u])] +=
              static_cast<Weight>(goes_left) * weights[i + u];
          n_left += goes_left;
        }
      }
    }
    for (; i < n; ++i) {
      const std::int32_t goes_left = values[i] <= threshold ? 1 : 0;
      h[static_cast<std::size_t>(labels[i])] += static_cast<Weight>(goes_left) * weights[i];
      n_left += goes_left;
    }
    for (std::size_t k = 0; k < c; ++k)
      left_[k] = Count{h[k]} + h[c + k] + h[2 * c + k] + h[3 * c + k];
    return n_left;
  }

  // A monotone transform of the impurity decrease of the split held in
  // left_ (scikit-learn's proxy_impurity_improvement): the parent's terms,
  // equal for every candidate, are left out.
  double children_proxy() const {
    const Count weight_left = std::accumulate(left_.begin(), left_.end(), Count{0});
    const auto wl = static_cast<double>(weight_left);
    const auto wr = static_cast<double>(weight_ - weight_left);
    double sum_left = 0.0;
    double sum_right = 0.0;
    for (std::size_t c = 0; c < left_.size(); ++c) {
      const auto l = static_cast<double>(left_[c]);
      const auto r = static_cast<double>(total_[c] - left_[c]);
      sum_left += entropy_ ? xlogx(l) : l * l;
      sum_right += entropy_ ? xlogx(r) : r * r;
    }
    return entropy_ ? sum_left + sum_right - xlogx(wl) - xlogx(wr) : sum_left / wl + sum_right / wr;
  }

  const std::int32_t* labels_;
  int classes_;
  bool entropy_;
  std::vector<std::int32_t> node_labels_;  // labels of the node's samples, in node order
  std::vector<Weight> node_weights_;       // their weights
  std::vector<Count> total_;               // weight per class in the node
  std::vector<Count> left_;                // weight per class going left
  std::vector<Weight> histograms_;         // count_left's scratch
  Count weight_ = 0;
  bool unit_weights_ = true;
};

// Real targets (one or several outputs) with the squared error: the
// impurity is the variance averaged over outputs.
template <class Weight>
class RealTarget {
 public:
  using WeightType = Weight;
  RealTarget(const TrainingBlock& block, SplitCriterion /*criterion*/)
      : targets_(block.targets.data()),
        outputs_(block.outputs),
        node_targets_(static_cast<std::size_t>(block.samples) * static_cast<std::size_t>(outputs_)),
        node_weights_(static_cast<std::size_t>(block.samples)),
        total_(static_cast<std::size_t>(outputs_)),
        left_(static_cast<std::size_t>(outputs_)) {}

  void load_node(const std::int32_t* samples, std::int32_t n, const Weight* weights) {
    const auto q = static_cast<std::size_t>(outputs_);
    std::fill(total_.begin(), total_.end(), 0.0);
    weight_ = 0.0;
    for (std::int32_t i = 0; i < n; ++i) {
      const auto sample = static_cast<std::size_t>(samples[i]);
      const double w = weights != nullptr ? static_cast<double>(weights[sample]) : 1.0;
      node_weights_[static_cast<std::size_t>(i)] = w;
      weight_ += w;
      for (std::size_t o = 0; o < q; ++o) {
        const double y = targets_[sample * q + o];
        node_targets_[static_cast<std::size_t>(i) * q + o] = y;
        total_[o] += w * y;
      }
    }
    // Two passes (mean, then squared deviations) so that equal targets give
    // exactly 0 and the node is recognised as pure.
    double sum = 0.0;
    for (std::int32_t i = 0; i < n; ++i) {
      for (std::size_t o = 0; o < q; ++o) {
        const double d = node_targets_[static_cast<std::size_t>(i) * q + o] - total_[o] / weight_;
        sum += node_weights_[static_cast<std::size_t>(i)] * d * d;
      }
    }
    impurity_ = sum / weight_ / static_cast<double>(q);
  }

  double weight() const { return weight_; }
  bool pure() const { return impurity_ <= kPureImpurity; }
  double impurity() const { return impurity_; }

  bool try_threshold(const float* values, std::int32_t n, float threshold, std::int32_t min_leaf,
                     double& best_proxy) {
    std::fill(left_.begin(), left_.end(), 0.0);
    std::int32_t n_left = 0;
    double weight_left = 0.0;
    const double* targets = node_targets_.data();
    const double* weights = node_weights_.data();
    if (outputs_ == 1) {
      double sum = 0.0;
      for (std::int32_t i = 0; i < n; ++i) {
        const bool goes_left = values[i] <= threshold;
        const double w = goes_left ? weights[i] : 0.0;
        weight_left += w;
        sum += w * targets[i];
        n_left += goes_left ? 1 : 0;
      }
      left_[0] = sum;
    } else {
      const auto q = static_cast<std::size_t>(outputs_);
      for (std::int32_t i = 0; i < n; ++i) {
        if (!(values[i] <= threshold)) continue;
        const double w = weights[i];
        weight_left += w;
        ++n_left;
        for (std::size_t o = 0; o < q; ++o)
          left_[o] += w * targets[static_cast<std::size_t>(i) * q + o];
      }
    }
    if (n_left < min_leaf || n - n_left < min_leaf) return false;
    const double proxy = children_proxy(weight_left);
    if (proxy <= best_proxy) return false;
    best_proxy = proxy;
    return true;
  }

  bool try_sorted(const std::uint64_t* keys, std::int32_t n, std::int32_t min_leaf,
                  double& best_proxy, double& threshold) {
    const auto q = static_cast<std::size_t>(outputs_);
    std::fill(left_.begin(), left_.end(), 0.0);
    double weight_left = 0.0;
    bool improved = false;
    for (std::int32_t p = 0; p + 1 < n; ++p) {
      const std::size_t i = key_index(keys[p]);
      const double w = node_weights_[i];
      weight_left += w;
      for (std::size_t o = 0; o < q; ++o) left_[o] += w * node_targets_[i * q + o];
      const std::int32_t n_left = p + 1;
      if (n_left < min_leaf) continue;
      if (n - n_left < min_leaf) break;
      const float x0 = key_value(keys[p]);
      const float x1 = key_value(keys[p + 1]);
      if (static_cast<double>(x1) <= static_cast<double>(x0) + kFeatureThreshold) continue;
      const double proxy = children_proxy(weight_left);
      if (proxy > best_proxy) {
        best_proxy = proxy;
        threshold = midpoint(x0, x1);
        improved = true;
      }
    }
    return improved;
  }

  void write_leaf(DecisionTree& tree, TreeNode& node) const {
    node.feature = DecisionTree::kLeaf;
    node.child = static_cast<std::int32_t>(tree.values.size());
    for (const double sum : total_) tree.values.push_back(sum / weight_);
  }

 private:
  // Sum over outputs of sum_left^2 / w_left + sum_right^2 / w_right: the
  // impurity decrease up to terms equal for every candidate.
  double children_proxy(double weight_left) const {
    const double weight_right = weight_ - weight_left;
    double proxy = 0.0;
    for (std::size_t o = 0; o < left_.size(); ++o) {
      const double right = total_[o] - left_[o];
      proxy += left_[o] * left_[o] / weight_left + right * right / weight_right;
    }
    return proxy;
  }

  const double* targets_;
  int outputs_;
  std::vector<double> node_targets_;  // node order, outputs per sample
  std::vector<double> node_weights_;
  std::vector<double> total_;  // weighted target sums of the node
  std::vector<double> left_;
  double weight_ = 0.0;
  double impurity_ = 0.0;
};

template <class Target>
class TreeGrower {
  using Weight = typename Target::WeightType;

 public:
  TreeGrower(const TrainingBlock& block, const TreeSettings& settings, std::uint64_t seed)
      : block_(block),
        settings_(settings),
        rng_(seed),
        target_(block, settings.criterion),
        features_(static_cast<std::size_t>(block.features)),
        current_(static_cast<std::size_t>(block.samples)),
        best_(static_cast<std::size_t>(block.samples)),
        scratch_(2 * static_cast<std::size_t>(block.samples) + 1) {
    std::iota(features_.begin(), features_.end(), 0);
    constant_order_ = features_;
    // RandomForest: the keys of a node and sort_keys' scratch.
    if (settings.kind == ForestKind::RandomForest)
      keys_.resize(2 * static_cast<std::size_t>(block.samples));
  }

  DecisionTree grow() {
    draw_samples();
    tree_.min_leaf_samples = std::numeric_limits<std::int64_t>::max();
    add_nodes(1);
    stack_.push_back({0, 0, static_cast<std::int32_t>(samples_.size()), 0, 0});
    while (!stack_.empty()) {
      const Task task = stack_.back();
      stack_.pop_back();
      grow_node(task);
    }
    tree_.importances = importances();
    tree_.nodes.shrink_to_fit();
    tree_.values.shrink_to_fit();
    return std::move(tree_);
  }

 private:
  struct Task {
    std::int32_t node;
    std::int32_t start;
    std::int32_t end;
    std::int32_t depth;
    std::int32_t constants;  // features known to be constant here: features_[0..constants)
  };
  struct Split {
    std::int32_t feature = -1;
    float threshold = 0.0F;
    double proxy = kNoSplit;
    std::int32_t constants = 0;  // known constant features for the children
  };

  // Bootstrap: n draws with replacement; a position drawn c times weighs c
  // and positions never drawn are left out (as scikit-learn does). Sample
  // weights multiply those counts, and a position of weight 0 is left out
  // too, so that it moves no threshold.
  void draw_samples() {
    const std::int32_t n = block_.samples;
    const bool weighted = !block_.weights.empty();
    if (!settings_.bootstrap && !weighted) {
      samples_.resize(static_cast<std::size_t>(n));
      std::iota(samples_.begin(), samples_.end(), 0);
      return;
    }
    weights_.assign(static_cast<std::size_t>(n), settings_.bootstrap ? 0 : 1);
    if (settings_.bootstrap) {
      for (std::int32_t i = 0; i < n; ++i) {
        weights_[rng_.uniform_index(static_cast<std::uint64_t>(n))] += 1;
      }
    }
    if constexpr (!std::is_integral_v<Weight>) {
      for (std::int32_t i = 0; i < n; ++i)
        weights_[static_cast<std::size_t>(i)] *= block_.weights[static_cast<std::size_t>(i)];
    }
    for (std::int32_t i = 0; i < n; ++i) {
      if (weights_[static_cast<std::size_t>(i)] > 0) samples_.push_back(i);
    }
    if constexpr (!std::is_integral_v<Weight>) {
      if (samples_.empty()) {  // every draw fell on rows of weight 0: the rows as weighed
        weights_ = block_.weights;
        for (std::int32_t i = 0; i < n; ++i) {
          if (weights_[static_cast<std::size_t>(i)] > 0) samples_.push_back(i);
        }
      }
    }
  }

  void add_nodes(int count) {
    tree_.nodes.resize(tree_.nodes.size() + static_cast<std::size_t>(count));
    node_weight_.resize(tree_.nodes.size());
    node_impurity_.resize(tree_.nodes.size());
  }

  void grow_node(const Task& task) {
    const std::int32_t n = task.end - task.start;
    target_.load_node(samples_.data() + task.start, n,
                      weights_.empty() ? nullptr : weights_.data());
    const auto id = static_cast<std::size_t>(task.node);
    node_weight_[id] = target_.weight();
    node_impurity_[id] = target_.impurity();
    bool leaf = n < settings_.min_samples_split || n < 2 * settings_.min_samples_leaf ||
                (settings_.max_depth > 0 && task.depth >= settings_.max_depth) || target_.pure();
    Split split;
    if (!leaf) {
      split = find_split(task);
      leaf = split.feature < 0;
    }
    if (leaf) {
      target_.write_leaf(tree_, tree_.nodes[id]);
      ++tree_.leaves;
      tree_.depth = std::max(tree_.depth, task.depth);
      tree_.min_leaf_samples = std::min<std::int64_t>(tree_.min_leaf_samples, n);
      return;
    }
    const std::int32_t n_left = partition(task.start, n, split.threshold);
    const auto child = static_cast<std::int32_t>(tree_.nodes.size());
    add_nodes(2);
    tree_.nodes[id] = TreeNode{split.feature, split.threshold, child};
    // Right pushed first: the left subtree is grown first, as in scikit-learn.
    stack_.push_back({child + 1, task.start + n_left, task.end, task.depth + 1, split.constants});
    stack_.push_back({child, task.start, task.start + n_left, task.depth + 1, split.constants});
  }

  // scikit-learn's candidate loop: draw features without replacement until
  // max_features were visited and at least one was not constant. features_
  // keeps the known constants first ([0, known)), newly found constants
  // next, and the features already tried at the end. A node's constants are
  // a prefix of its parent's list, so one array serves the whole
  // depth-first growth as long as every node leaves the prefix it was given
  // exactly as it found it (constant_order_ remembers that order).
  Split find_split(const Task& task) {
    const std::int32_t n = task.end - task.start;
    const std::int32_t* samples = samples_.data() + task.start;
    const std::int32_t known = task.constants;
    std::int32_t remaining = block_.features;  // features_[.., remaining) not yet tried
    std::int32_t found = 0;                    // constants found in this node
    std::int32_t drawn = 0;                    // known constants drawn
    std::int32_t total_constants = known;
    std::int32_t visited = 0;
    Split best;
    while (remaining > total_constants &&
           (visited < settings_.max_features || visited <= found + drawn)) {
      ++visited;
      auto j = drawn + static_cast<std::int32_t>(rng_.uniform_index(
                           static_cast<std::uint64_t>(remaining - found - drawn)));
      if (j < known) {
        std::swap(features_[static_cast<std::size_t>(drawn)],
                  features_[static_cast<std::size_t>(j)]);
        ++drawn;
        continue;
      }
      j += found;
      const std::int32_t feature = features_[static_cast<std::size_t>(j)];
      float low = 0.0F;
      float high = 0.0F;
      gather(feature, samples, n, low, high);
      if (static_cast<double>(high) <= static_cast<double>(low) + kFeatureThreshold) {
        features_[static_cast<std::size_t>(j)] =
            features_[static_cast<std::size_t>(total_constants)];
        features_[static_cast<std::size_t>(total_constants)] = feature;
        ++found;
        ++total_constants;
        continue;
      }
      --remaining;
      std::swap(features_[static_cast<std::size_t>(remaining)],
                features_[static_cast<std::size_t>(j)]);
      if (try_feature(n, low, high, best)) {
        best.feature = feature;
        std::swap(current_, best_);  // keep the winner's values for the partition
      }
    }
    // Swaps of drawn known constants permuted features_[0, known); the
    // ancestors' shorter prefixes must keep their exact sets for the
    // ancestors' other subtrees, so restore the order the node found.
    std::copy(constant_order_.begin(), constant_order_.begin() + known, features_.begin());
    std::copy(features_.begin() + known, features_.begin() + total_constants,
              constant_order_.begin() + known);
    best.constants = total_constants;
    return best;
  }

  // Feature `feature` of the node's samples into current_, with its range.
  void gather(std::int32_t feature, const std::int32_t* samples, std::int32_t n, float& low,
              float& high) {
    const float* column = block_.column(feature);
    const auto stride = static_cast<std::size_t>(block_.features);
    float* out = current_.data();
    // Four running minima and maxima: one pair would chain every
    // iteration on the latency of the previous min/max.
    float lo[4];
    float hi[4];
    std::fill(lo, lo + 4, column[static_cast<std::size_t>(samples[0]) * stride]);
    std::fill(hi, hi + 4, column[static_cast<std::size_t>(samples[0]) * stride]);
    std::int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (int u = 0; u < 4; ++u) {
        const float v = column[static_cast<std::size_t>(samples[i + u]) * stride];
        out[i + u] = v;
        lo[u] = std::min(lo[u], v);
        hi[u] = std::max(hi[u], v);
      }
    }
    for (; i < n; ++i) {
      const float v = column[static_cast<std::size_t>(samples[i]) * stride];
      out[i] = v;
      lo[0] = std::min(lo[0], v);
      hi[0] = std::max(hi[0], v);
    }
    low = std::min(std::min(lo[0], lo[1]), std::min(lo[2], lo[3]));
    high = std::max(std::max(hi[0], hi[1]), std::max(hi[2], hi[3]));
  }

  // Evaluates the values in current_; true (with best.threshold and
  // best.proxy updated) when they give a better split than best.
  bool try_feature(std::int32_t n, float low, float high, Split& best) {
    const std::int32_t min_leaf = settings_.min_samples_leaf;
    if (settings_.kind == ForestKind::ExtraTrees) {
      double threshold = rng_.uniform(low, high);
      if (threshold >= high) threshold = low;
      const float cut = float_at_most(threshold);
      if (!target_.try_threshold(current_.data(), n, cut, min_leaf, best.proxy)) return false;
      best.threshold = cut;
      return true;
    }
    for (std::int32_t i = 0; i < n; ++i) {
      keys_[static_cast<std::size_t>(i)] =
          sort_key(current_[static_cast<std::size_t>(i)], static_cast<std::uint32_t>(i));
    }
    const std::uint64_t* sorted = sort_keys(keys_.data(), keys_.data() + block_.samples, n);
    double threshold = 0.0;
    if (!target_.try_sorted(sorted, n, min_leaf, best.proxy, threshold)) return false;
    best.threshold = float_at_most(threshold);
    return true;
  }

  // Moves the node's samples with best_ <= threshold to the front of its
  // range; returns how many there are.
  // Without branches (which side a sample goes is a coin toss): each
  // sample is written to both scratch lists and only the right count grows.
  std::int32_t partition(std::int32_t start, std::int32_t n, float threshold) {
    std::int32_t* samples = samples_.data() + start;
    const float* values = best_.data();
    std::int32_t* left = scratch_.data();
    std::int32_t* right = scratch_.data() + n;
    std::int32_t n_left = 0;
    std::int32_t n_right = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t goes_left = values[i] <= threshold ? 1 : 0;
      left[n_left] = samples[i];
      right[n_right] = samples[i];
      n_left += goes_left;
      n_right += 1 - goes_left;
    }
    std::copy(left, left + n_left, samples);
    std::copy(right, right + n_right, samples + n_left);
    return n_left;
  }

  // scikit-learn's compute_feature_importances(normalize=True).
  std::vector<double> importances() const {
    std::vector<double> result(static_cast<std::size_t>(block_.features), 0.0);
    for (std::size_t id = 0; id < tree_.nodes.size(); ++id) {
      const TreeNode& node = tree_.nodes[id];
      if (node.feature < 0) continue;
      const auto left = static_cast<std::size_t>(node.child);
      result[static_cast<std::size_t>(node.feature)] +=
          node_weight_[id] * node_impurity_[id] - node_weight_[left] * node_impurity_[left] -
          node_weight_[left + 1] * node_impurity_[left + 1];
    }
    double sum = 0.0;
    for (double& value : result) {
      value /= node_weight_[0];
      sum += value;
    }
    if (sum > 0.0) {
      for (double& value : result) value /= sum;
    }
    return result;
  }

  const TrainingBlock& block_;
  const TreeSettings& settings_;
  Rng rng_;
  Target target_;
  std::vector<std::int32_t> samples_;  // positions; each node owns a range
  std::vector<Weight> weights_;  // per position (bootstrap counts, sample weights); empty: all 1
  std::vector<std::int32_t> features_;
  std::vector<std::int32_t> constant_order_;  // features_[0, known) as each node must leave it
  std::vector<float> current_;                // the candidate feature's values, node order
  std::vector<float> best_;                   // the best candidate's values so far
  std::vector<std::uint64_t> keys_;
  std::vector<std::int32_t> scratch_;  // partition's two lists
  std::vector<Task> stack_;
  std::vector<double> node_weight_;
  std::vector<double> node_impurity_;
  DecisionTree tree_;
};

}  // namespace

DecisionTree build_tree(const TrainingBlock& block, const TreeSettings& settings,
                        std::uint64_t seed) {
  TOPKFS_ASSERT(block.samples > 0 && block.features > 0);
  TOPKFS_ASSERT(settings.criterion != SplitCriterion::Auto);
  const bool weighted = !block.weights.empty();
  if (block.kind == TargetKind::Classes) {
    if (weighted) return TreeGrower<ClassTarget<double, double>>(block, settings, seed).grow();
    return TreeGrower<ClassTarget<std::int32_t, std::int64_t>>(block, settings, seed).grow();
  }
  TOPKFS_ASSERT(block.kind == TargetKind::Real);
  if (weighted) return TreeGrower<RealTarget<double>>(block, settings, seed).grow();
  return TreeGrower<RealTarget<std::int32_t>>(block, settings, seed).grow();
}

}  // namespace topkfs::trees_detail
