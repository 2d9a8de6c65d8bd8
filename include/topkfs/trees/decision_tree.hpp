#pragma once
// One fitted decision tree of a forest (trees/forest.hpp), stored as flat
// arrays: prediction walks a vector of 12-byte nodes, and a fully grown tree
// costs no allocation per node.
#include <cstdint>
#include <vector>

namespace topkfs {

struct TreeNode {
  // Inner node: the feature tested (an index into the forest's fitted
  // columns, 0..k-1). Leaves: kLeaf or kPureLeaf (below).
  std::int32_t feature = 0;
  // A sample goes left when x[feature] <= threshold. Thresholds are floats
  // rounded down from the split value, so the float comparison sends every
  // training sample where the split put it.
  float threshold = 0.0F;
  // Inner node: the left child; the right child is child + 1.
  // kLeaf: offset of the leaf's values in DecisionTree::values.
  // kPureLeaf: the one class of the leaf (probability 1).
  std::int32_t child = 0;
};

struct DecisionTree {
  // A leaf with a value per class (proportions) or per output (means).
  static constexpr std::int32_t kLeaf = -1;
  // A classification leaf holding a single class: most leaves of a fully
  // grown tree, stored without values.
  static constexpr std::int32_t kPureLeaf = -2;

  std::vector<TreeNode> nodes;  // nodes[0] is the root
  std::vector<double> values;   // leaf values, num_classes or num_outputs per kLeaf leaf

  int depth = 0;  // edges from the root to the deepest leaf
  int leaves = 0;
  // Fewest (distinct) training samples in a leaf; >= min_samples_leaf.
  std::int64_t min_leaf_samples = 0;
  // Mean decrease in impurity per fitted column, weighted by the samples
  // reaching each node, normalised to sum 1 (all zero for a single leaf).
  std::vector<double> importances;

  // The leaf reached by a sample whose fitted columns are x[0..k-1].
  const TreeNode& leaf(const float* x) const {
    std::int32_t n = 0;
    while (nodes[static_cast<std::size_t>(n)].feature >= 0) {
      const TreeNode& node = nodes[static_cast<std::size_t>(n)];
      n = node.child + static_cast<std::int32_t>(x[node.feature] > node.threshold);
    }
    return nodes[static_cast<std::size_t>(n)];
  }
};

}  // namespace topkfs
