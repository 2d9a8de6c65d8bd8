#include "topkfs/data/scaling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "topkfs/core/enum_names.hpp"
#include "topkfs/core/error.hpp"

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

// About 4 MB of rows per block.
std::int64_t block_rows(const RowSource& source) {
  return std::max<std::int64_t>(
      1, (std::int64_t{1} << 20) / std::max<std::int64_t>(1, source.column_count()));
}

}  // namespace

// One pass in file order, so that a mapped or row-block source is read once,
// sequentially. The sums are of x - K in double, K being the column's value in
// the first row read: shifting by a value of the column keeps the variance as
// accurate as a second pass over the centred data would for a column whose
// mean is large against its spread.
ColumnStatistics column_statistics(const RowSource& features,
                                   const std::vector<std::int64_t>& rows) {
  const auto fit_rows = rows_to_fit(features, rows);
  if (fit_rows.empty()) throw DataError("scaling: no rows to compute the statistics on");
  const auto m = static_cast<std::size_t>(features.column_count());
  std::vector<double> shift(m), sum(m, 0.0), squares(m, 0.0);
  std::vector<float> low(m, std::numeric_limits<float>::infinity());
  std::vector<float> high(m, -std::numeric_limits<float>::infinity());
  bool first = true;
  for_each_gathered_block(features, fit_rows, block_rows(features),
                          [&](std::int64_t count, const float* block) {
                            if (first) std::copy_n(block, m, shift.begin());
                            first = false;
                            for (std::int64_t i = 0; i < count; ++i, block += m) {
                              for (std::size_t j = 0; j < m; ++j) {
                                const double d = block[j] - shift[j];
                                sum[j] += d;
                                squares[j] += d * d;
                                low[j] = std::min(low[j], block[j]);
                                high[j] = std::max(high[j], block[j]);
                              }
                            }
                          });
  const double n = static_cast<double>(fit_rows.size());
  ColumnStatistics stats;
  stats.low.resize(static_cast<Eigen::Index>(m));
  stats.high.resize(static_cast<Eigen::Index>(m));
  stats.mean.resize(static_cast<Eigen::Index>(m));
  stats.sd.resize(static_cast<Eigen::Index>(m));
  for (std::size_t j = 0; j < m; ++j) {
    const auto at = static_cast<Eigen::Index>(j);
    const double shifted_mean = sum[j] / n;
    stats.low[at] = low[j];
    stats.high[at] = high[j];
    stats.mean[at] = shift[j] + shifted_mean;
    stats.sd[at] = std::sqrt(std::max(0.0, squares[j] / n - shifted_mean * shifted_mean));
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
