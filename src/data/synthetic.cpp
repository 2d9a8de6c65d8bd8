#include "topkfs/data/synthetic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/core/random.hpp"

namespace topkfs {
namespace {

// Beyond this many feature values (2 GB of floats) a typo is likelier than a
// wish; refuse before allocating.
constexpr std::int64_t max_values = 500'000'000;

[[noreturn]] void bad_option(const char* field, const std::string& problem) {
  throw OptionError(fmt::format("synthetic data: {} {}", field, problem));
}

struct Layout {
  std::vector<std::int64_t> informative;
  std::vector<std::int64_t> decoys;
  std::vector<std::int64_t> decoy_sources;
};

// Informative and decoy columns at random positions; decoy i copies
// informative feature i mod p. Both lists come back ascending.
Layout random_layout(const SyntheticOptions& options, Rng& rng) {
  const auto order = rng.permutation(options.features);
  Layout layout;
  layout.informative.assign(order.begin(), order.begin() + options.informative);
  std::sort(layout.informative.begin(), layout.informative.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> decoys;  // column, source
  for (int i = 0; i < options.correlated_decoys; ++i) {
    decoys.emplace_back(order[static_cast<std::size_t>(options.informative + i)],
                        layout.informative[static_cast<std::size_t>(i % options.informative)]);
  }
  std::sort(decoys.begin(), decoys.end());
  for (const auto& [column, source] : decoys) {
    layout.decoys.push_back(column);
    layout.decoy_sources.push_back(source);
  }
  return layout;
}

Eigen::VectorXd random_coefficients(int count, Rng& rng) {
  Eigen::VectorXd beta(count);
  for (int t = 0; t < count; ++t) {
    const double magnitude = rng.uniform(0.5, 1.5);
    beta[t] = rng.uniform() < 0.5 ? -magnitude : magnitude;
  }
  return beta;
}

FeatureMatrix standard_normal_features(std::int64_t rows, std::int64_t cols, Rng& rng) {
  FeatureMatrix x(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) x(i, j) = static_cast<float>(rng.normal());
  }
  return x;
}

void plant_decoys(const Layout& layout, double correlation, FeatureMatrix& x) {
  const double fresh = std::sqrt(std::max(0.0, 1.0 - correlation * correlation));
  for (std::size_t d = 0; d < layout.decoys.size(); ++d) {
    const auto column = layout.decoys[d];
    const auto source = layout.decoy_sources[d];
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      // The column's own standard normal serves as the independent part z.
      x(i, column) = static_cast<float>(correlation * x(i, source) + fresh * x(i, column));
    }
  }
}

double nonlinear_term(int t, const FeatureMatrix& x, Eigen::Index row,
                      const std::vector<std::int64_t>& informative) {
  // Standard deviation of sin(x) for x ~ N(0, 1): sqrt((1 - e^-2) / 2).
  static const double sin_sd = std::sqrt((1.0 - std::exp(-2.0)) / 2.0);
  const double v = x(row, informative[static_cast<std::size_t>(t)]);
  switch (t % 3) {
    case 0: return std::sin(v) / sin_sd;
    case 1: return (v * v - 1.0) / std::sqrt(2.0);
    default: return v * static_cast<double>(x(row, informative[static_cast<std::size_t>(t - 1)]));
  }
}

double population_sd(const Eigen::VectorXd& values) {
  const double mean = values.mean();
  return std::sqrt((values.array() - mean).square().sum() / static_cast<double>(values.size()));
}

// Labels 0..C-1 by rank of y: the (C - 1) quantiles are the thresholds, ties
// broken by row, so class sizes differ by at most one.
std::vector<std::int32_t> balanced_classes(const Eigen::VectorXd& y, int classes) {
  const auto n = static_cast<std::int64_t>(y.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return y[a] < y[b]; });
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t rank = 0; rank < n; ++rank) {
    labels[static_cast<std::size_t>(order[static_cast<std::size_t>(rank)])] =
        static_cast<std::int32_t>(rank * classes / n);
  }
  return labels;
}

void set_target(const SyntheticOptions& options, const Eigen::VectorXd& y, Dataset& data) {
  if (options.target == SyntheticOptions::Target::Real) {
    data.target_kind = TargetKind::Real;
    data.targets = y;
    data.target_names = {"y"};
    return;
  }
  data.target_kind = TargetKind::Classes;
  data.target_names = {"y"};  // the column name when the data is written out
  data.labels = balanced_classes(y, options.classes);
  for (int c = 0; c < options.classes; ++c) data.class_names.push_back(std::to_string(c));
}

}  // namespace

void SyntheticOptions::validate() const {
  if (samples < 2) bad_option("samples", fmt::format("is {}; it must be at least 2", samples));
  if (features < 1) bad_option("features", fmt::format("is {}; it must be at least 1", features));
  if (samples > max_values / features) {
    bad_option("samples", fmt::format("x features = {} x {} is more than {} values", samples,
                                      features, max_values));
  }
  if (informative < 1 || informative > features) {
    bad_option("informative",
               fmt::format("is {}; it must be between 1 and features ({})", informative, features));
  }
  if (correlated_decoys < 0 || informative + correlated_decoys > features) {
    bad_option("correlated_decoys",
               fmt::format("is {}; it must be between 0 and features - informative ({})",
                           correlated_decoys, features - informative));
  }
  if (!(decoy_correlation >= -1.0 && decoy_correlation <= 1.0)) {
    bad_option("decoy_correlation", fmt::format("is {}; it must be in [-1, 1]", decoy_correlation));
  }
  if (target == Target::Classes && (classes < 2 || classes > samples)) {
    bad_option("classes",
               fmt::format("is {}; it must be between 2 and samples ({})", classes, samples));
  }
  if (!(noise >= 0.0 && std::isfinite(noise))) {
    bad_option("noise", fmt::format("is {}; it must be a finite value >= 0", noise));
  }
}

Eigen::VectorXd synthetic_score(const SyntheticOptions& options, const SyntheticData& made,
                                const FeatureMatrix& features) {
  const auto p = static_cast<int>(made.informative.size());
  TOPKFS_ASSERT(made.coefficients.size() == p);
  for (auto column : made.informative) {
    if (column >= features.cols()) {
      throw DataError(
          fmt::format("synthetic score: informative column {} but the features have "
                      "{} columns",
                      column, features.cols()));
    }
  }
  Eigen::VectorXd score = Eigen::VectorXd::Zero(features.rows());
  for (Eigen::Index i = 0; i < features.rows(); ++i) {
    double s = 0.0;
    for (int t = 0; t < p; ++t) {
      const double term = options.relation == SyntheticOptions::Relation::Linear
                              ? static_cast<double>(features(i, made.informative[t]))
                              : nonlinear_term(t, features, i, made.informative);
      s += made.coefficients[t] * term;
    }
    score[i] = s;
  }
  return score;
}

SyntheticData make_synthetic(const SyntheticOptions& options) {
  options.validate();
  Rng rng(options.seed);
  SyntheticData made;
  auto layout = random_layout(options, rng);
  made.coefficients = random_coefficients(options.informative, rng);
  Dataset& data = made.data;
  data.features = standard_normal_features(options.samples, options.features, rng);
  plant_decoys(layout, options.decoy_correlation, data.features);
  made.informative = std::move(layout.informative);
  made.decoys = std::move(layout.decoys);
  made.decoy_sources = std::move(layout.decoy_sources);

  Eigen::VectorXd y = synthetic_score(options, made, data.features);
  if (options.noise > 0.0) {
    const double noise_sd = options.noise * population_sd(y);
    for (Eigen::Index i = 0; i < y.size(); ++i) y[i] += noise_sd * rng.normal();
  }
  set_target(options, y, data);
  name_unnamed_features(data);
  data.source = "synthetic";
  data.format = "synthetic";
  data.notes.push_back(fmt::format(
      "synthetic: {} informative features, {} decoys (correlation {}), {} relation, seed {}",
      options.informative, options.correlated_decoys, options.decoy_correlation,
      options.relation == SyntheticOptions::Relation::Linear ? "linear" : "nonlinear",
      options.seed));
  return made;
}

}  // namespace topkfs
