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

std::vector<std::int64_t> rows_to_fit(const FeatureMatrix& features,
                                      const std::vector<std::int64_t>& rows) {
  if (rows.empty()) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(features.rows()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    return all;
  }
  for (auto row : rows) {
    if (row < 0 || row >= features.rows()) {
      throw OptionError(fmt::format("scaling: row index {} out of range (the data has {} rows)",
                                    row, features.rows()));
    }
  }
  return rows;
}

// Two passes in double: the mean first, then the squared deviations, which
// stays accurate for columns whose mean is large against their spread.
void fit_standard(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                  Scaler& scaler) {
  const double n = static_cast<double>(rows.size());
  for (Eigen::Index j = 0; j < features.cols(); ++j) {
    double sum = 0.0;
    float low = std::numeric_limits<float>::infinity();
    float high = -low;
    for (auto row : rows) {
      const float v = features(row, j);
      sum += v;
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const double mean = sum / n;
    double squares = 0.0;
    for (auto row : rows) {
      const double d = features(row, j) - mean;
      squares += d * d;
    }
    // An exactly constant column has a rounding-level variance at most; like
    // scikit-learn, it is left unscaled rather than blown up.
    const double sd = std::sqrt(squares / n);
    scaler.offset[j] = mean;
    scaler.scale[j] = low == high || sd == 0.0 ? 1.0 : sd;
  }
}

void fit_min_max(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                 Scaler& scaler) {
  for (Eigen::Index j = 0; j < features.cols(); ++j) {
    float low = std::numeric_limits<float>::infinity();
    float high = -low;
    for (auto row : rows) {
      low = std::min(low, features(row, j));
      high = std::max(high, features(row, j));
    }
    const double range = static_cast<double>(high) - low;
    scaler.offset[j] = low;
    scaler.scale[j] = range > 0.0 ? range : 1.0;
  }
}

}  // namespace

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

Scaler fit_scaler(const FeatureMatrix& features, const std::vector<std::int64_t>& rows,
                  ScalingKind kind) {
  Scaler scaler;
  scaler.kind = kind;
  if (kind == ScalingKind::None) return scaler;
  const auto fit_rows = rows_to_fit(features, rows);
  if (fit_rows.empty()) {
    throw DataError(fmt::format("scaling: no rows to fit the {} scaler on", to_string(kind)));
  }
  scaler.offset.resize(features.cols());
  scaler.scale.resize(features.cols());
  if (kind == ScalingKind::Standard) {
    fit_standard(features, fit_rows, scaler);
  } else {
    fit_min_max(features, fit_rows, scaler);
  }
  return scaler;
}

bool within_unit_interval(const FeatureMatrix& features, const std::vector<std::int64_t>& rows) {
  const auto row_within = [&](Eigen::Index i) {
    const auto row = features.row(i);
    return row.minCoeff() >= 0.0F && row.maxCoeff() <= 1.0F;  // NaN fails both
  };
  if (rows.empty()) {
    for (Eigen::Index i = 0; i < features.rows(); ++i) {
      if (!row_within(i)) return false;
    }
    return features.rows() > 0;
  }
  return std::all_of(rows.begin(), rows.end(), [&](std::int64_t i) { return row_within(i); });
}

}  // namespace topkfs
