#include "topkfs/data/marginal_dependence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "topkfs/core/error.hpp"
#include "topkfs/data/sample_weights.hpp"

namespace topkfs {
namespace {

// Expected count per cell below which the chi-square approximation is poor
// (Cochran's rule of thumb).
constexpr double kLeastExpected = 5.0;
constexpr int kMostBins = 4;

// The chi-square statistic of a contingency table (rows: the column's bins,
// columns: the target's cells) and its degrees of freedom, counting only the
// bins and cells that hold weight.
struct ChiSquare {
  double statistic = 0.0;
  int df = 0;
};

ChiSquare chi_square(const std::vector<double>& table, int bins, int cells) {
  std::vector<double> bin_total(static_cast<std::size_t>(bins), 0.0);
  std::vector<double> cell_total(static_cast<std::size_t>(cells), 0.0);
  for (int b = 0; b < bins; ++b) {
    for (int c = 0; c < cells; ++c) {
      const double count = table[static_cast<std::size_t>(b * cells + c)];
      bin_total[static_cast<std::size_t>(b)] += count;
      cell_total[static_cast<std::size_t>(c)] += count;
    }
  }
  const double total = std::accumulate(bin_total.begin(), bin_total.end(), 0.0);
  ChiSquare out;
  if (!(total > 0)) return out;
  for (int b = 0; b < bins; ++b) {
    for (int c = 0; c < cells; ++c) {
      const double expected =
          bin_total[static_cast<std::size_t>(b)] * cell_total[static_cast<std::size_t>(c)] / total;
      if (!(expected > 0)) continue;
      const double diff = table[static_cast<std::size_t>(b * cells + c)] - expected;
      out.statistic += diff * diff / expected;
    }
  }
  auto held = [](const std::vector<double>& totals) {
    return static_cast<int>(
        std::count_if(totals.begin(), totals.end(), [](double t) { return t > 0; }));
  };
  out.df = (held(bin_total) - 1) * (held(cell_total) - 1);
  return out;
}

// Wilson and Hilferty: (x / df)^(1/3) is nearly normal with mean
// 1 - 2 / (9 df) and variance 2 / (9 df).
double normal_deviate(const ChiSquare& test) {
  if (test.df <= 0) return -std::numeric_limits<double>::infinity();
  const double v = 2.0 / (9.0 * test.df);
  return (std::cbrt(test.statistic / test.df) - (1.0 - v)) / std::sqrt(v);
}

}  // namespace

std::vector<int> quantile_bins(const float* values, std::int64_t count, std::int64_t stride,
                               int bins, const double* weights) {
  TOPKFS_ASSERT(bins >= 1);
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(count));
  double total = 0.0;
  for (std::int64_t i = 0; i < count; ++i) {
    if (std::isnan(values[i * stride])) continue;
    order.push_back(i);
    total += weights ? weights[i] : 1.0;
  }
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return values[a * stride] < values[b * stride];
  });
  std::vector<int> out(static_cast<std::size_t>(count), -1);
  double below = 0.0;    // weight of the values strictly below the current run of equal ones
  double reached = 0.0;  // weight of the values before the current one
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::int64_t row = order[i];
    if (i > 0 && values[row * stride] != values[order[i - 1] * stride]) below = reached;
    // A weight of 0 everywhere leaves every value in bin 0.
    const int bin = total > 0 ? static_cast<int>(std::floor(bins * below / total)) : 0;
    out[static_cast<std::size_t>(row)] = std::min(bin, bins - 1);
    reached += weights ? weights[row] : 1.0;
  }
  return out;
}

std::vector<double> marginal_dependence(const Dataset& data,
                                        const std::vector<std::int64_t>& rows) {
  if (data.target_kind == TargetKind::None) {
    throw DataError(fmt::format("{}: the marginal dependence needs a target", data.source));
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  const std::int64_t m = data.cols();
  std::vector<float> x(static_cast<std::size_t>(n * m));
  data.feature_rows().copy_rows(rows.data(), rows.size(), x.data());
  std::vector<double> weights = row_weights(data, rows);
  if (weights.empty()) weights.assign(static_cast<std::size_t>(n), 1.0);
  // A row of weight w counts as w copies: in the bins' edges as in the counts.
  const double weight_total = std::accumulate(weights.begin(), weights.end(), 0.0);

  // The target's cell of each row, one set of cells per output.
  std::vector<std::vector<int>> target_cells;
  std::vector<int> cell_counts;
  if (data.target_kind == TargetKind::Classes) {
    std::vector<int> cells(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      cells[static_cast<std::size_t>(i)] = data.labels[static_cast<std::size_t>(rows[i])];
    }
    target_cells.push_back(std::move(cells));
    cell_counts.push_back(static_cast<int>(data.class_names.size()));
  }
  const int classes = data.target_kind == TargetKind::Classes ? cell_counts.front() : kMostBins;
  const int bins = std::clamp(
      static_cast<int>(weight_total / (kLeastExpected * std::max(classes, 2))), 2, kMostBins);
  if (data.target_kind == TargetKind::Real) {
    for (Eigen::Index q = 0; q < data.targets.cols(); ++q) {
      std::vector<float> y(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        y[static_cast<std::size_t>(i)] = static_cast<float>(data.targets(rows[i], q));
      }
      target_cells.push_back(quantile_bins(y.data(), n, 1, bins, weights.data()));
      cell_counts.push_back(bins);
    }
  }

  std::vector<double> out(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j) {
    const std::vector<int> column_bins = quantile_bins(x.data() + j, n, m, bins, weights.data());
    ChiSquare total;
    for (std::size_t t = 0; t < target_cells.size(); ++t) {
      const int cells = cell_counts[t];
      std::vector<double> table(static_cast<std::size_t>(bins * cells), 0.0);
      for (std::int64_t i = 0; i < n; ++i) {
        const int b = column_bins[static_cast<std::size_t>(i)];
        const int c = target_cells[t][static_cast<std::size_t>(i)];
        if (b < 0 || c < 0) continue;
        table[static_cast<std::size_t>(b * cells + c)] += weights[static_cast<std::size_t>(i)];
      }
      const ChiSquare test = chi_square(table, bins, cells);
      total.statistic += test.statistic;
      total.df += test.df;
    }
    out[static_cast<std::size_t>(j)] = normal_deviate(total);
  }
  return out;
}

}  // namespace topkfs
