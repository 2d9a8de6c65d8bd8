// Fitting a forest (the training block, then one tree per task on a small
// pool of threads) and predicting with it.
#include "topkfs/trees/forest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "tree_builder.hpp"

namespace topkfs {
namespace {

using trees_detail::TrainingBlock;
using trees_detail::TreeSettings;

// Rows predicted together: their fitted columns are gathered into one small
// contiguous buffer, then every tree runs over them while its nodes are in cache.
constexpr std::int64_t kPredictBlock = 256;

int resolve_threads(int threads, std::int64_t tasks) {
  std::int64_t count = threads;
  if (count <= 0) count = std::max(1U, std::thread::hardware_concurrency());
  return static_cast<int>(std::max<std::int64_t>(1, std::min(count, tasks)));
}

// Runs task(0..count-1) on `threads` threads, each taking the next index in
// turn. Which thread runs a task never changes its result. The first
// exception thrown by a task is rethrown here once every thread has stopped.
template <class Task>
void parallel_for(std::int64_t count, int threads, const Task& task) {
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&]() {
    for (;;) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= count) return;
      try {
        task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(count);
      }
    }
  };
  const int used = resolve_threads(threads, count);
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(used - 1));
  for (int t = 1; t < used; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

std::string name_of(const Dataset& data) { return data.source.empty() ? "the data" : data.source; }

void check_rows(const std::vector<std::int64_t>& rows, std::int64_t available, const char* what) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= available) {
      throw OptionError(
          fmt::format("{}: row {} (at position {}) is out of range; there are {} rows", what,
                      rows[i], i, available));
    }
  }
}

void check_columns(const std::vector<std::int64_t>& columns, std::int64_t available,
                   const char* what) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] < 0 || columns[i] >= available) {
      throw OptionError(
          fmt::format("{}: column {} (at position {}) is out of range; there are {} columns", what,
                      columns[i], i, available));
    }
  }
}

SplitCriterion resolve_criterion(SplitCriterion criterion, TargetKind kind, const Dataset& data) {
  if (criterion == SplitCriterion::Auto) {
    return kind == TargetKind::Classes ? SplitCriterion::Gini : SplitCriterion::SquaredError;
  }
  const bool for_classes = criterion != SplitCriterion::SquaredError;
  if (for_classes != (kind == TargetKind::Classes)) {
    throw OptionError(
        fmt::format("forest options: criterion {} needs {}, but {} has {}; use {} (or auto)",
                    to_string(criterion), for_classes ? "class labels" : "real targets",
                    name_of(data), kind == TargetKind::Classes ? "class labels" : "real targets",
                    kind == TargetKind::Classes ? "gini or entropy" : "squared_error"));
  }
  return criterion;
}

// The chosen rows and columns as one compact block, with their targets.
TrainingBlock gather_block(const Dataset& data, const std::vector<std::int64_t>& rows,
                           const std::vector<std::int64_t>& columns) {
  TrainingBlock block;
  block.samples = static_cast<std::int32_t>(rows.size());
  block.features = static_cast<std::int32_t>(columns.size());
  block.kind = data.target_kind;
  const auto n = static_cast<std::size_t>(block.samples);
  block.values.resize(n * columns.size());
  const float* source = data.features.data();
  const auto stride = static_cast<std::size_t>(data.features.cols());
  const auto k = columns.size();
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = source + static_cast<std::size_t>(rows[i]) * stride;
    float* out = block.values.data() + i * k;
    for (std::size_t j = 0; j < k; ++j) out[j] = row[columns[j]];
  }
  if (block.kind == TargetKind::Classes) {
    block.classes = data.num_classes();
    block.labels.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      block.labels[i] = data.labels[static_cast<std::size_t>(rows[i])];
  } else {
    block.outputs = data.num_outputs();
    const auto q = static_cast<std::size_t>(block.outputs);
    block.targets.resize(n * q);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t o = 0; o < q; ++o) {
        block.targets[i * q + o] = data.targets(rows[i], static_cast<Eigen::Index>(o));
      }
    }
  }
  block.weights = row_weights(data, rows);
  check_rows_weigh(block.weights, data.source);
  return block;
}

// The leaf of each of `count` rows (x: count x k, row-major) in `tree`.
// Eight rows descend side by side: one descent is a chain of dependent
// loads, eight overlap their cache misses.
void find_leaves(const DecisionTree& tree, const float* x, std::size_t k, std::int64_t count,
                 std::int32_t* leaves) {
  constexpr std::int64_t lanes = 8;
  const TreeNode* nodes = tree.nodes.data();
  for (std::int64_t first = 0; first < count; first += lanes) {
    const std::int64_t used = std::min(lanes, count - first);
    std::int32_t* at = leaves + first;
    std::fill(at, at + used, 0);
    for (bool moved = true; moved;) {
      moved = false;
      for (std::int64_t l = 0; l < used; ++l) {
        const TreeNode& node = nodes[at[l]];
        if (node.feature < 0) continue;
        const float value =
            x[static_cast<std::size_t>(first + l) * k + static_cast<std::size_t>(node.feature)];
        at[l] = node.child + static_cast<std::int32_t>(value > node.threshold);
        moved = true;
      }
    }
  }
}

// Mean of the trees' importance vectors, over trees that split at least once,
// normalised to sum 1 (scikit-learn's BaseForest.feature_importances_).
std::vector<double> forest_importances(const std::vector<DecisionTree>& trees,
                                       std::size_t columns) {
  std::vector<double> result(columns, 0.0);
  for (const auto& tree : trees) {
    if (tree.nodes.size() <= 1) continue;
    for (std::size_t j = 0; j < columns; ++j) result[j] += tree.importances[j];
  }
  const double sum = std::accumulate(result.begin(), result.end(), 0.0);
  if (sum > 0.0) {
    for (double& value : result) value /= sum;
  }
  return result;
}

}  // namespace

void Forest::fit(const Dataset& data, const std::vector<std::int64_t>& rows,
                 const std::vector<std::int64_t>& columns) {
  options_.validate();
  const TargetKind kind = data.target_kind;
  if (kind == TargetKind::None) {
    throw DataError(fmt::format(
        "{}: no target to fit a forest on; the forests need class labels or real targets",
        name_of(data)));
  }
  if (kind == TargetKind::Classes && data.labels.size() != static_cast<std::size_t>(data.rows())) {
    throw DataError(
        fmt::format("{}: {} labels for {} rows", name_of(data), data.labels.size(), data.rows()));
  }
  if (kind == TargetKind::Real && (data.targets.rows() != data.rows() || data.targets.cols() < 1)) {
    throw DataError(fmt::format("{}: targets of shape {}x{} for {} rows", name_of(data),
                                data.targets.rows(), data.targets.cols(), data.rows()));
  }
  if (rows.empty()) throw OptionError("forest fit: no rows given; give the training rows");
  check_rows(rows, data.rows(), "forest fit");
  if (rows.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw OptionError(fmt::format("forest fit: {} rows; at most {} are supported", rows.size(),
                                  std::numeric_limits<std::int32_t>::max()));
  }
  std::vector<std::int64_t> fitted_columns = columns;
  if (fitted_columns.empty()) {
    fitted_columns.resize(static_cast<std::size_t>(data.cols()));
    std::iota(fitted_columns.begin(), fitted_columns.end(), std::int64_t{0});
  }
  if (fitted_columns.empty())
    throw DataError(fmt::format("{}: no columns to fit on", name_of(data)));
  check_columns(fitted_columns, data.cols(), "forest fit");

  TreeSettings settings;
  settings.kind = options_.kind;
  settings.criterion = resolve_criterion(options_.criterion, kind, data);
  settings.max_features =
      options_.max_features.resolve(static_cast<int>(fitted_columns.size()), kind);
  settings.min_samples_split = options_.min_samples_split;
  settings.min_samples_leaf = options_.min_samples_leaf;
  settings.max_depth = options_.max_depth;
  settings.bootstrap = options_.uses_bootstrap();

  const TrainingBlock block = gather_block(data, rows, fitted_columns);
  std::vector<DecisionTree> trees(static_cast<std::size_t>(options_.n_estimators));
  parallel_for(options_.n_estimators, options_.threads, [&](std::int64_t t) {
    trees[static_cast<std::size_t>(t)] = trees_detail::build_tree(
        block, settings, derive_seed(options_.seed, static_cast<std::uint64_t>(t)));
  });

  target_kind_ = kind;
  num_classes_ = kind == TargetKind::Classes ? data.num_classes() : 0;
  num_outputs_ = kind == TargetKind::Real ? data.num_outputs() : 0;
  importances_ = forest_importances(trees, fitted_columns.size());
  columns_ = std::move(fitted_columns);
  trees_ = std::move(trees);
}

void Forest::require_fitted(TargetKind kind, const char* call) const {
  if (!fitted())
    throw OptionError(fmt::format("forest {}: the forest is not fitted; call fit first", call));
  if (kind != target_kind_) {
    throw OptionError(
        fmt::format("forest {}: the forest was fitted on {}; use {}", call,
                    target_kind_ == TargetKind::Classes ? "class labels" : "real targets",
                    target_kind_ == TargetKind::Classes ? "predict_proba or predict_classes"
                                                        : "predict_values"));
  }
}

void Forest::accumulate_leaves(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                               int width, double* out) const {
  check_rows(rows, features.rows(), "forest predict");
  const auto widest = *std::max_element(columns_.begin(), columns_.end());
  if (widest >= features.cols()) {
    throw OptionError(fmt::format(
        "forest predict: the forest was fitted on column {}, but the matrix has {} columns; "
        "predict on a matrix with the columns of the training data",
        widest, features.cols()));
  }
  const auto k = columns_.size();
  const auto n = static_cast<std::int64_t>(rows.size());
  const auto blocks = (n + kPredictBlock - 1) / kPredictBlock;
  const double scale = 1.0 / static_cast<double>(trees_.size());
  parallel_for(blocks, options_.threads, [&](std::int64_t b) {
    const std::int64_t first = b * kPredictBlock;
    const std::int64_t count = std::min(kPredictBlock, n - first);
    std::vector<float> x(static_cast<std::size_t>(count) * k);
    for (std::int64_t r = 0; r < count; ++r) {
      const float* row =
          features.data() + rows[static_cast<std::size_t>(first + r)] * features.cols();
      for (std::size_t j = 0; j < k; ++j) x[static_cast<std::size_t>(r) * k + j] = row[columns_[j]];
    }
    double* sums = out + first * width;
    std::vector<std::int32_t> leaves(static_cast<std::size_t>(count));
    for (const DecisionTree& tree : trees_) {
      find_leaves(tree, x.data(), k, count, leaves.data());
      for (std::int64_t r = 0; r < count; ++r) {
        const TreeNode& leaf =
            tree.nodes[static_cast<std::size_t>(leaves[static_cast<std::size_t>(r)])];
        double* row_sums = sums + r * width;
        if (leaf.feature == DecisionTree::kPureLeaf) {
          row_sums[leaf.child] += 1.0;
        } else {
          const double* values = tree.values.data() + leaf.child;
          for (int c = 0; c < width; ++c) row_sums[c] += values[c];
        }
      }
    }
    for (std::int64_t i = 0; i < count * width; ++i) sums[i] *= scale;
  });
}

ProbabilityMatrix Forest::predict_proba(const FeatureMatrix& features,
                                        const std::vector<std::int64_t>& rows) const {
  require_fitted(TargetKind::Classes, "predict_proba");
  ProbabilityMatrix result =
      ProbabilityMatrix::Zero(static_cast<Eigen::Index>(rows.size()), num_classes_);
  accumulate_leaves(features, rows, num_classes_, result.data());
  return result;
}

std::vector<std::int32_t> Forest::predict_classes(const FeatureMatrix& features,
                                                  const std::vector<std::int64_t>& rows) const {
  require_fitted(TargetKind::Classes, "predict_classes");
  const ProbabilityMatrix proba = predict_proba(features, rows);
  std::vector<std::int32_t> result(rows.size());
  for (Eigen::Index i = 0; i < proba.rows(); ++i) {
    Eigen::Index best = 0;
    proba.row(i).maxCoeff(&best);  // the first maximum, as numpy's argmax
    result[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(best);
  }
  return result;
}

TargetMatrix Forest::predict_values(const FeatureMatrix& features,
                                    const std::vector<std::int64_t>& rows) const {
  require_fitted(TargetKind::Real, "predict_values");
  TargetMatrix result = TargetMatrix::Zero(static_cast<Eigen::Index>(rows.size()), num_outputs_);
  accumulate_leaves(features, rows, num_outputs_, result.data());
  return result;
}

}  // namespace topkfs
