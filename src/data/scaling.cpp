#include "topkfs/data/scaling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"
#include "topkfs/core/rank_group.hpp"

namespace topkfs {
namespace {

std::vector<std::int64_t> rows_to_fit(const RowSource& features,
                                      const std::vector<std::int64_t>& rows) {
  if (rows.empty()) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(features.row_count()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    return all;
  }
  for (auto row : rows) {
    if (row < 0 || row >= features.row_count()) {
      throw OptionError(fmt::format("scaling: row index {} out of range (the data has {} rows)",
                                    row, features.row_count()));
    }
  }
  return rows;
}

}  // namespace

namespace {

// What one pass over some rows accumulates: the sums are of x - K in double,
// K being the column's value in the first row read, so that shifting by a
// value of the column keeps the variance as accurate as a second pass over
// the centred data would for a column whose mean is large against its
// spread. `count` 0: no row (the vectors are then empty).
struct ShiftedSums {
  std::int64_t count = 0;
  std::vector<double> shift, sum, squares;
  std::vector<float> low, high;
};

// One pass in file order, so that a mapped or row-block source is read once,
// sequentially. `rows` are checked already.
ShiftedSums shifted_sums(const RowSource& features, const std::vector<std::int64_t>& rows) {
  ShiftedSums out;
  out.count = static_cast<std::int64_t>(rows.size());
  if (rows.empty()) return out;
  const auto m = static_cast<std::size_t>(features.column_count());
  out.shift.assign(m, 0.0);
  out.sum.assign(m, 0.0);
  out.squares.assign(m, 0.0);
  out.low.assign(m, std::numeric_limits<float>::infinity());
  out.high.assign(m, -std::numeric_limits<float>::infinity());
  bool first = true;
  for_each_gathered_block(features, rows, features.pass_block_rows(),
                          [&](std::int64_t count, const float* block) {
                            if (first) std::copy_n(block, m, out.shift.begin());
                            first = false;
                            for (std::int64_t i = 0; i < count; ++i, block += m) {
                              for (std::size_t j = 0; j < m; ++j) {
                                const double d = block[j] - out.shift[j];
                                out.sum[j] += d;
                                out.squares[j] += d * d;
                                out.low[j] = std::min(out.low[j], block[j]);
                                out.high[j] = std::max(out.high[j], block[j]);
                              }
                            }
                          });
  return out;
}

ColumnStatistics sized_statistics(std::size_t m) {
  ColumnStatistics stats;
  for (auto* v : {&stats.low, &stats.high, &stats.mean, &stats.sd})
    v->resize(static_cast<Eigen::Index>(m));
  return stats;
}

}  // namespace

ColumnStatistics column_statistics(const RowSource& features,
                                   const std::vector<std::int64_t>& rows) {
  const auto fit_rows = rows_to_fit(features, rows);
  if (fit_rows.empty()) throw DataError("scaling: no rows to compute the statistics on");
  const ShiftedSums sums = shifted_sums(features, fit_rows);
  const auto m = sums.shift.size();
  const double n = static_cast<double>(sums.count);
  ColumnStatistics stats = sized_statistics(m);
  for (std::size_t j = 0; j < m; ++j) {
    const auto at = static_cast<Eigen::Index>(j);
    const double shifted_mean = sums.sum[j] / n;
    stats.low[at] = sums.low[j];
    stats.high[at] = sums.high[j];
    stats.mean[at] = sums.shift[j] + shifted_mean;
    stats.sd[at] = std::sqrt(std::max(0.0, sums.squares[j] / n - shifted_mean * shifted_mean));
  }
  return stats;
}

ColumnStatistics column_statistics(const RowSource& features, const std::vector<std::int64_t>& rows,
                                   RankGroup& ranks) {
  if (ranks.size() == 1) return column_statistics(features, rows);
  const RowShard shard = row_shard(features.row_count(), ranks.rank(), ranks.size());
  std::vector<std::int64_t> mine;
  for (auto row : rows_to_fit(features, rows)) {
    if (shard.contains(row)) mine.push_back(row);
  }
  const ShiftedSums sums = shifted_sums(features, mine);
  // Each rank's count, means, centred sums of squares, minima and maxima in
  // its own slot of one buffer: the sum over the ranks gathers them all, and
  // every rank combines them in rank order, so all get the same statistics.
  const auto m = static_cast<std::size_t>(features.column_count());
  const std::size_t slot = 1 + 4 * m;
  std::vector<double> all(slot * static_cast<std::size_t>(ranks.size()), 0.0);
  double* own = all.data() + slot * static_cast<std::size_t>(ranks.rank());
  own[0] = static_cast<double>(sums.count);
  for (std::size_t j = 0; sums.count > 0 && j < m; ++j) {
    const double n = static_cast<double>(sums.count);
    own[1 + j] = sums.shift[j] + sums.sum[j] / n;
    own[1 + m + j] = std::max(0.0, sums.squares[j] - sums.sum[j] * sums.sum[j] / n);
    own[1 + 2 * m + j] = sums.low[j];
    own[1 + 3 * m + j] = sums.high[j];
  }
  ranks.sum(all.data(), all.size());
  // Chan, Golub and LeVeque's pairwise update of the mean and the centred
  // sum of squares, one rank at a time.
  double count = 0.0;
  std::vector<double> mean(m, 0.0), centred(m, 0.0);
  ColumnStatistics stats = sized_statistics(m);
  stats.low.setConstant(std::numeric_limits<double>::infinity());
  stats.high.setConstant(-std::numeric_limits<double>::infinity());
  for (int r = 0; r < ranks.size(); ++r) {
    const double* part = all.data() + slot * static_cast<std::size_t>(r);
    const double n = part[0];
    if (n == 0) continue;
    const double total = count + n;
    for (std::size_t j = 0; j < m; ++j) {
      const auto at = static_cast<Eigen::Index>(j);
      const double delta = part[1 + j] - mean[j];
      mean[j] += delta * n / total;
      centred[j] += part[1 + m + j] + delta * delta * count * n / total;
      stats.low[at] = std::min(stats.low[at], part[1 + 2 * m + j]);
      stats.high[at] = std::max(stats.high[at], part[1 + 3 * m + j]);
    }
    count = total;
  }
  if (count == 0) throw DataError("scaling: no rows to compute the statistics on");
  for (std::size_t j = 0; j < m; ++j) {
    const auto at = static_cast<Eigen::Index>(j);
    stats.mean[at] = mean[j];
    stats.sd[at] = std::sqrt(centred[j] / count);
  }
  return stats;
}

constexpr EnumName<ScalingKind> kScalingNames[] = {{ScalingKind::None, "none"},
                                                   {ScalingKind::Standard, "standard"},
                                                   {ScalingKind::MinMax, "minmax"}};

const char* to_string(ScalingKind kind) { return enum_name(kind, kScalingNames); }

ScalingKind parse_scaling(const std::string& name) {
  return parse_enum(name, kScalingNames, "scaling");
}

void Scaler::apply(FeatureMatrix& features) const {
  if (kind == ScalingKind::None) return;
  if (features.cols() != offset.size()) {
    throw DataError(fmt::format(
        "scaling: the scaler was fitted on {} columns but the data has {}; fit it on the "
        "same features",
        offset.size(), features.cols()));
  }
  for (Eigen::Index i = 0; i < features.rows(); ++i) {
    for (Eigen::Index j = 0; j < features.cols(); ++j) {
      const double v = (static_cast<double>(features(i, j)) - offset[j]) / scale[j];
      features(i, j) = static_cast<float>(v);
    }
  }
}

Scaler fit_scaler(const RowSource& features, const std::vector<std::int64_t>& rows,
                  ScalingKind kind) {
  Scaler scaler;
  scaler.kind = kind;
  if (kind == ScalingKind::None) return scaler;
  if (rows.empty() && features.row_count() == 0) {
    throw DataError(fmt::format("scaling: no rows to fit the {} scaler on", to_string(kind)));
  }
  return scaler_from(column_statistics(features, rows), kind);
}

Scaler scaler_from(const ColumnStatistics& stats, ScalingKind kind) {
  Scaler scaler;
  scaler.kind = kind;
  if (kind == ScalingKind::None) return scaler;
  scaler.offset.resize(stats.mean.size());
  scaler.scale.resize(stats.mean.size());
  for (Eigen::Index j = 0; j < stats.mean.size(); ++j) {
    if (kind == ScalingKind::Standard) {
      // An exactly constant column has a rounding-level variance at most;
      // like scikit-learn, it is left unscaled rather than blown up.
      scaler.offset[j] = stats.mean[j];
      scaler.scale[j] = stats.low[j] == stats.high[j] || stats.sd[j] == 0.0 ? 1.0 : stats.sd[j];
    } else {
      const double range = stats.high[j] - stats.low[j];
      scaler.offset[j] = stats.low[j];
      scaler.scale[j] = range > 0.0 ? range : 1.0;
    }
  }
  return scaler;
}

}  // namespace topkfs
