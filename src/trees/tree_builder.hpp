#pragma once
// Growing one decision tree (private to src/trees). forest.cpp prepares the
// training block once and calls build_tree() once per tree, from any thread.
#include <cstdint>
#include <vector>

#include "topkfs/trees/decision_tree.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs::trees_detail {

// The training rows and fitted columns, gathered once per fit and shared
// read-only by every tree. Samples are addressed by position 0..n-1.
struct TrainingBlock {
  std::int32_t samples = 0;
  std::int32_t features = 0;
  // Row-major: feature j of sample i at values[i * features + j]. A node reads
  // several candidate features of the same samples; row-major, they share
  // cache lines, where one contiguous column per feature would be read in
  // the node's sample order, jumping anyway (faster on MNIST: bench/README.md,
  // "Measurements behind the code").
  std::vector<float> values;

  TargetKind kind = TargetKind::None;
  int classes = 0;                   // Classes
  std::vector<std::int32_t> labels;  // Classes: 0..classes-1 per sample
  int outputs = 0;                   // Real
  std::vector<double> targets;       // Real: samples x outputs, row-major
  // Sample weights (data/sample_weights.hpp), one per sample; empty: all 1.
  std::vector<double> weights;

  // Feature j of sample i is column(j)[i * features].
  const float* column(std::int32_t j) const { return values.data() + j; }
};

// The options of ForestOptions that one tree needs, resolved for the data.
struct TreeSettings {
  ForestKind kind = ForestKind::ExtraTrees;
  SplitCriterion criterion = SplitCriterion::Gini;  // never Auto here
  int max_features = 1;
  int min_samples_split = 2;
  int min_samples_leaf = 1;
  int max_depth = 0;  // 0: unlimited
  bool bootstrap = false;
};

// Grows one tree on `block` with its own generator Rng(seed). Allocates its
// scratch arrays once per tree (a few arrays of `samples` entries), never per
// node.
DecisionTree build_tree(const TrainingBlock& block, const TreeSettings& settings,
                        std::uint64_t seed);

}  // namespace topkfs::trees_detail
