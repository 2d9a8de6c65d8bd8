#include "topkfs/scoring/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "topkfs/core/error.hpp"

namespace topkfs {
namespace {

void check_same_shape(const TargetMatrix& truth, const TargetMatrix& predicted,
                      const char* metric) {
  if (truth.size() == 0 || truth.rows() != predicted.rows() || truth.cols() != predicted.cols()) {
    throw OptionError(
        fmt::format("{}: truth is {}x{} and predicted {}x{}; they must have the same, "
                    "non-empty shape",
                    metric, truth.rows(), truth.cols(), predicted.rows(), predicted.cols()));
  }
}

// Weights of a score: none, or one per row, >= 0 with a positive sum.
void check_metric_weights(const std::vector<double>& weights, std::size_t rows,
                          const char* metric) {
  if (weights.empty()) return;
  double total = 0.0;
  for (double w : weights) {
    if (!(w >= 0) || !std::isfinite(w)) {
      throw OptionError(fmt::format("{}: a weight is {}; weights are finite and >= 0", metric, w));
    }
    total += w;
  }
  if (weights.size() != rows || !(total > 0)) {
    throw OptionError(
        fmt::format("{}: {} weights for {} rows summing to {}; give one per row, not all 0", metric,
                    weights.size(), rows, total));
  }
}

// `set` sorted, after checking that it holds distinct features >= 0 (< m when m > 0).
std::vector<std::int64_t> as_set(const std::vector<std::int64_t>& set, const char* what,
                                 std::int64_t m = 0) {
  std::vector<std::int64_t> sorted = set;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || (m > 0 && sorted[i] >= m)) {
      throw OptionError(
          fmt::format("{}: feature {} is out of range{}", what, sorted[i],
                      m > 0 ? fmt::format(" 0..{}", m - 1) : std::string(" (negative)")));
    }
    if (i > 0 && sorted[i] == sorted[i - 1]) {
      throw OptionError(fmt::format("{}: feature {} appears more than once", what, sorted[i]));
    }
  }
  return sorted;
}

std::int64_t overlap(const std::vector<std::int64_t>& sorted_a,
                     const std::vector<std::int64_t>& sorted_b) {
  std::int64_t count = 0;
  auto a = sorted_a.begin();
  auto b = sorted_b.begin();
  while (a != sorted_a.end() && b != sorted_b.end()) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++count;
      ++a;
      ++b;
    }
  }
  return count;
}

double mean_over_pairs(const std::vector<std::vector<std::int64_t>>& sets, const char* metric,
                       const std::function<double(std::size_t, std::size_t)>& score) {
  if (sets.size() < 2) {
    throw OptionError(
        fmt::format("{}: {} set(s) given; pairs need at least 2", metric, sets.size()));
  }
  double sum = 0.0;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    for (std::size_t j = i + 1; j < sets.size(); ++j) {
      sum += score(i, j);
      ++pairs;
    }
  }
  return sum / static_cast<double>(pairs);
}

}  // namespace

double accuracy(const std::vector<std::int32_t>& truth, const std::vector<std::int32_t>& predicted,
                const std::vector<double>& weights) {
  if (truth.empty() || truth.size() != predicted.size()) {
    throw OptionError(
        fmt::format("accuracy: {} true labels and {} predicted; they must be as many, "
                    "and more than 0",
                    truth.size(), predicted.size()));
  }
  check_metric_weights(weights, truth.size(), "accuracy");
  double equal = 0.0;
  double total = 0.0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    equal += truth[i] == predicted[i] ? w : 0.0;
    total += w;
  }
  return equal / total;
}

double mean_absolute_error(const TargetMatrix& truth, const TargetMatrix& predicted,
                           const std::vector<double>& weights) {
  check_same_shape(truth, predicted, "mean_absolute_error");
  check_metric_weights(weights, static_cast<std::size_t>(truth.rows()), "mean_absolute_error");
  if (weights.empty()) return (truth - predicted).cwiseAbs().colwise().mean().mean();
  const Eigen::Map<const Eigen::VectorXd> w(weights.data(), truth.rows());
  return (w.transpose() * (truth - predicted).cwiseAbs()).mean() / w.sum();
}

double root_mean_squared_error(const TargetMatrix& truth, const TargetMatrix& predicted,
                               const std::vector<double>& weights) {
  check_same_shape(truth, predicted, "root_mean_squared_error");
  check_metric_weights(weights, static_cast<std::size_t>(truth.rows()), "root_mean_squared_error");
  if (weights.empty()) return (truth - predicted).array().square().colwise().mean().sqrt().mean();
  const Eigen::Map<const Eigen::VectorXd> w(weights.data(), truth.rows());
  const Eigen::RowVectorXd squares = w.transpose() * (truth - predicted).array().square().matrix();
  return (squares.array() / w.sum()).sqrt().mean();
}

double r2_score(const TargetMatrix& truth, const TargetMatrix& predicted) {
  check_same_shape(truth, predicted, "r2_score");
  double sum = 0.0;
  for (Eigen::Index o = 0; o < truth.cols(); ++o) {
    const double residual = (truth.col(o) - predicted.col(o)).squaredNorm();
    const double total = (truth.col(o).array() - truth.col(o).mean()).square().sum();
    if (total > 0.0) {
      sum += 1.0 - residual / total;
    } else {
      sum += residual == 0.0 ? 1.0 : 0.0;
    }
  }
  return sum / static_cast<double>(truth.cols());
}

SetAgreement selection_agreement(const std::vector<std::int64_t>& selected,
                                 const std::vector<std::int64_t>& truth) {
  const auto a = as_set(selected, "selection_agreement: selected set");
  const auto b = as_set(truth, "selection_agreement: true set");
  const auto common = static_cast<double>(overlap(a, b));
  SetAgreement result;
  if (!a.empty()) result.precision = common / static_cast<double>(a.size());
  if (!b.empty()) result.recall = common / static_cast<double>(b.size());
  const double sum = result.precision + result.recall;
  if (sum > 0.0) result.f1 = 2.0 * result.precision * result.recall / sum;
  return result;
}

double jaccard_index(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  const auto set_a = as_set(a, "jaccard_index: first set");
  const auto set_b = as_set(b, "jaccard_index: second set");
  const std::int64_t common = overlap(set_a, set_b);
  const auto joined = static_cast<std::int64_t>(set_a.size() + set_b.size()) - common;
  return joined == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(joined);
}

double kuncheva_index(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                      std::int64_t m) {
  if (m < 1) throw OptionError(fmt::format("kuncheva_index: m = {}; it must be at least 1", m));
  const auto set_a = as_set(a, "kuncheva_index: first set", m);
  const auto set_b = as_set(b, "kuncheva_index: second set", m);
  if (set_a.size() != set_b.size()) {
    throw OptionError(
        fmt::format("kuncheva_index: the sets hold {} and {} features; the index "
                    "compares sets of the same size",
                    set_a.size(), set_b.size()));
  }
  const auto k = static_cast<double>(set_a.size());
  const auto total = static_cast<double>(m);
  if (set_a.empty() || static_cast<std::int64_t>(set_a.size()) == m) return 0.0;
  const auto r = static_cast<double>(overlap(set_a, set_b));
  return (r * total - k * k) / (k * (total - k));
}

double mean_pairwise_jaccard(const std::vector<std::vector<std::int64_t>>& sets) {
  return mean_over_pairs(sets, "mean_pairwise_jaccard", [&](std::size_t i, std::size_t j) {
    return jaccard_index(sets[i], sets[j]);
  });
}

double mean_pairwise_kuncheva(const std::vector<std::vector<std::int64_t>>& sets, std::int64_t m) {
  return mean_over_pairs(sets, "mean_pairwise_kuncheva", [&](std::size_t i, std::size_t j) {
    return kuncheva_index(sets[i], sets[j], m);
  });
}

}  // namespace topkfs
