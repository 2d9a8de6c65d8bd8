// The Inf-FS graph: per-feature statistics over the training rows, the
// relevance of each feature to the target, and the edge weights
// a_ij = alpha sigma_ij + (1 - alpha) c_ij (docs/algorithms.md).
#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "topkfs/baselines/inffs.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs {
namespace {

// The authors' code replaces a zero within-class variance by this constant
// (`st(st==0) = 10000`), so a feature constant within each class gets a
// small, scale-dependent relevance instead of a division by zero. Kept for
// fidelity; docs/algorithms.md discusses it.
constexpr double kZeroVarianceReplacement = 10000.0;
// rho^2 / (1 - rho^2) for a real target is bounded by this denominator floor
// when a feature ranks the samples exactly as the target does.
constexpr double kUnexplainedFloor = 1e-12;

double sample_variance(double sum_of_squares, std::int64_t count) {
  return count > 1 ? sum_of_squares / static_cast<double>(count - 1) : 0.0;
}

// Mean and sample variance (n - 1) of every column over `rows`, per group
// (group[i] in 0..groups-1 for the i-th of `rows`), two passes in double.
struct GroupMoments {
  Eigen::MatrixXd mean;      // groups x m
  Eigen::MatrixXd variance;  // groups x m
  std::vector<std::int64_t> count;
};

GroupMoments group_moments(const FeatureMatrix& x, const std::vector<std::int64_t>& rows,
                           const std::vector<int>& group, int groups) {
  const Eigen::Index m = x.cols();
  GroupMoments out;
  out.mean = Eigen::MatrixXd::Zero(groups, m);
  out.variance = Eigen::MatrixXd::Zero(groups, m);
  out.count.assign(static_cast<std::size_t>(groups), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.mean.row(group[i]) += x.row(rows[i]).cast<double>();
    ++out.count[static_cast<std::size_t>(group[i])];
  }
  for (int g = 0; g < groups; ++g) {
    if (out.count[static_cast<std::size_t>(g)] > 0) {
      out.mean.row(g) /= static_cast<double>(out.count[static_cast<std::size_t>(g)]);
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.variance.row(group[i]) +=
        (x.row(rows[i]).cast<double>() - out.mean.row(group[i])).array().square().matrix();
  }
  for (int g = 0; g < groups; ++g) {
    for (Eigen::Index j = 0; j < m; ++j) {
      out.variance(g, j) =
          sample_variance(out.variance(g, j), out.count[static_cast<std::size_t>(g)]);
    }
  }
  return out;
}

// Fisher criterion per feature: sum over pairs of classes of the squared
// difference of class means, over the sum of the within-class variances
// (classes absent from the rows are left out). Two classes: the authors'
// (mu+ - mu-)^2 / (s+^2 + s-^2).
Eigen::VectorXd fisher_relevance(const Dataset& data, const std::vector<std::int64_t>& rows) {
  std::vector<int> group(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    group[i] = data.labels[static_cast<std::size_t>(rows[i])];
  const GroupMoments moments = group_moments(data.features, rows, group, data.num_classes());
  std::vector<int> present;
  for (int c = 0; c < data.num_classes(); ++c) {
    if (moments.count[static_cast<std::size_t>(c)] > 0) present.push_back(c);
  }
  if (present.size() < 2) {
    throw DataError(fmt::format(
        "{}: the rows inffs learns from hold {} class; the Fisher criterion needs two or more",
        data.source, present.size()));
  }
  Eigen::VectorXd between = Eigen::VectorXd::Zero(data.cols());
  Eigen::VectorXd within = Eigen::VectorXd::Zero(data.cols());
  for (std::size_t a = 0; a < present.size(); ++a) {
    within += moments.variance.row(present[a]).transpose();
    for (std::size_t b = a + 1; b < present.size(); ++b) {
      between += (moments.mean.row(present[a]) - moments.mean.row(present[b]))
                     .array()
                     .square()
                     .matrix()
                     .transpose();
    }
  }
  for (Eigen::Index j = 0; j < within.size(); ++j) {
    if (within[j] == 0.0) within[j] = kZeroVarianceReplacement;
  }
  return between.cwiseQuotient(within);
}

// Average ranks (ties share the mean of their ranks, as MATLAB's tiedrank),
// centred and scaled to unit norm, so that a dot product of two of them is
// Spearman's correlation. A constant vector gives zeros (correlation 0).
Eigen::VectorXd unit_ranks(const Eigen::VectorXd& values) {
  const Eigen::Index n = values.size();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
  Eigen::VectorXd ranks(n);
  for (Eigen::Index start = 0; start < n;) {
    Eigen::Index end = start + 1;
    while (end < n && values[order[static_cast<std::size_t>(end)]] ==
                          values[order[static_cast<std::size_t>(start)]]) {
      ++end;
    }
    const double average = 0.5 * static_cast<double>(start + end - 1);
    for (Eigen::Index t = start; t < end; ++t) ranks[order[static_cast<std::size_t>(t)]] = average;
    start = end;
  }
  ranks.array() -= ranks.mean();
  const double norm = ranks.norm();
  // Ranks of a non-constant vector have a norm of at least 1/2.
  if (norm < 0.25) return Eigen::VectorXd::Zero(n);
  return ranks / norm;
}

Eigen::VectorXd column_over(const FeatureMatrix& x, const std::vector<std::int64_t>& rows,
                            Eigen::Index j) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) out[static_cast<Eigen::Index>(i)] = x(rows[i], j);
  return out;
}

// Real targets: rho^2 / (1 - rho^2) with rho Spearman's correlation of the
// feature and the target (the explained over the unexplained variance of a
// least-squares fit of one's ranks on the other's: the two-group Fisher
// criterion's counterpart), averaged over the outputs.
Eigen::VectorXd correlation_relevance(const Dataset& data, const std::vector<std::int64_t>& rows) {
  std::vector<Eigen::VectorXd> target_ranks;
  for (int o = 0; o < data.num_outputs(); ++o) {
    Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i)
      y[static_cast<Eigen::Index>(i)] = data.targets(rows[i], o);
    target_ranks.push_back(unit_ranks(y));
  }
  Eigen::VectorXd relevance = Eigen::VectorXd::Zero(data.cols());
  for (Eigen::Index j = 0; j < data.cols(); ++j) {
    const Eigen::VectorXd ranks = unit_ranks(column_over(data.features, rows, j));
    for (const auto& y : target_ranks) {
      const double rho2 = std::pow(ranks.dot(y), 2);
      relevance[j] += rho2 / std::max(1.0 - rho2, kUnexplainedFloor);
    }
  }
  return relevance / static_cast<double>(target_ranks.size());
}

// (v - min v) / (max v - min v) of a matrix given by entry(i, j), in place
// into `out` scaled by `weight` and added; the authors normalise each term
// over the whole matrix and set 0/0 to 0.
template <typename Entry>
void add_normalised(Eigen::MatrixXd& out, double weight, double low, double high,
                    const Entry& entry) {
  const double span = high - low;
  if (!(span > 0.0) || weight == 0.0) return;
  for (Eigen::Index j = 0; j < out.cols(); ++j) {
    for (Eigen::Index i = 0; i < out.rows(); ++i) out(i, j) += weight * (entry(i, j) - low) / span;
  }
}

// |Spearman correlation| of every pair of features (m x m; the n x m ranks
// are held in double while it is formed).
Eigen::MatrixXd absolute_spearman(const FeatureMatrix& x, const std::vector<std::int64_t>& rows) {
  Eigen::MatrixXd ranks(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) ranks.col(j) = unit_ranks(column_over(x, rows, j));
  Eigen::MatrixXd correlation = Eigen::MatrixXd::Zero(x.cols(), x.cols());
  correlation.selfadjointView<Eigen::Lower>().rankUpdate(ranks.transpose());
  correlation.triangularView<Eigen::StrictlyUpper>() = correlation.transpose();
  correlation = correlation.cwiseAbs();
  return correlation;
}

}  // namespace

Eigen::VectorXd inffs_relevance(const Dataset& data, const std::vector<std::int64_t>& rows) {
  switch (data.target_kind) {
    case TargetKind::Classes: return fisher_relevance(data, rows);
    case TargetKind::Real: return correlation_relevance(data, rows);
    case TargetKind::None: break;
  }
  throw DataError(fmt::format(
      "{}: supervised inffs needs a target, and this data has none; name it with {}, or use {}",
      data.source, option_ref("target"), option_ref("supervised", "false")));
}

Eigen::MatrixXd inffs_graph(const Dataset& data, const std::vector<std::int64_t>& rows,
                            const InfFsOptions& options) {
  options.validate();
  if (rows.size() < 2) {
    throw DataError(fmt::format("{}: inffs needs at least 2 rows to learn from, got {}",
                                data.source, rows.size()));
  }
  const std::vector<int> one_group(rows.size(), 0);
  const Eigen::VectorXd sd =
      group_moments(data.features, rows, one_group, 1).variance.row(0).transpose().cwiseSqrt();
  Eigen::MatrixXd a;
  if (options.supervised) {
    const Eigen::VectorXd f = inffs_relevance(data, rows);
    a = Eigen::MatrixXd::Zero(data.cols(), data.cols());
    // f >= 0, so f_i f_j ranges over [min f^2, max f^2].
    add_normalised(a, 1.0 - options.alpha, f.minCoeff() * f.minCoeff(), f.maxCoeff() * f.maxCoeff(),
                   [&](Eigen::Index i, Eigen::Index j) { return f[i] * f[j]; });
  } else {
    // In place: the graph of a wide dataset is the largest thing in memory.
    a = absolute_spearman(data.features, rows);
    a.array() = (1.0 - options.alpha) * (1.0 - a.array());
  }
  // max(sd_i, sd_j) ranges over [min sd, max sd]: the diagonal holds both ends.
  add_normalised(a, options.alpha, sd.minCoeff(), sd.maxCoeff(),
                 [&](Eigen::Index i, Eigen::Index j) { return std::max(sd[i], sd[j]); });
  return a;
}

}  // namespace topkfs
