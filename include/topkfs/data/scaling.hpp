#pragma once
// Per-feature scaling, fitted on the training rows only and applied to any rows
// (so the test rows never leak into the statistics).
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "topkfs/data/dataset.hpp"

namespace topkfs {

class RankGroup;

//  None:     x' = x.
//  Standard: x' = (x - mean) / std, population std (ddof = 0) as in
//            scikit-learn's StandardScaler; constant columns get std 1, so
//            they become 0 on the fitted rows.
//  MinMax:   x' = (x - min) / (max - min), [0, 1] on the fitted rows as in
//            scikit-learn's MinMaxScaler; constant columns get range 1, so
//            they become 0 on the fitted rows.
enum class ScalingKind { None, Standard, MinMax };

const char* to_string(ScalingKind kind);
// Parses "none", "standard", "minmax" (case-insensitive); throws OptionError
// listing the choices otherwise.
ScalingKind parse_scaling(const std::string& name);

// x'_ij = (x_ij - offset_j) / scale_j, computed in double. For kind None the
// vectors are empty and apply() leaves the matrix as it is. The statistics are
// kept in double: a float mean is off by up to 2^-24 of itself, which for a
// column with mean 50 times its std is a 1e-5 shift of the scaled values.
struct Scaler {
  ScalingKind kind = ScalingKind::None;
  Eigen::VectorXd offset;
  Eigen::VectorXd scale;

  // Scales every row of `features` in place. Throws DataError when the column
  // count differs from the one the scaler was fitted on.
  void apply(FeatureMatrix& features) const;
};

// Per-column minimum, maximum, mean and population standard deviation of
// rows `rows` of `features` (empty: all rows), in one sequential pass over
// the source (a mapped file is read once, in order). Throws OptionError for a
// row index out of range, DataError when there is no row.
struct ColumnStatistics {
  Eigen::VectorXd low, high, mean, sd;
};
ColumnStatistics column_statistics(const RowSource& features,
                                   const std::vector<std::int64_t>& rows);
// The same statistics in a data-parallel run (docs/scale.md): each rank
// passes over the rows of `rows` in its own shard only (row_shard of the
// source's rows), and one sum over the ranks gathers every shard's count,
// mean, centred sum of squares, minimum and maximum, which every rank
// combines alike. The result equals the one-process statistics up to the
// order of the sums. Every rank calls it with the same `rows`.
ColumnStatistics column_statistics(const RowSource& features, const std::vector<std::int64_t>& rows,
                                   RankGroup& ranks);

// The scaler of `features` over `rows` (empty: all rows), from
// column_statistics. Same errors.
Scaler fit_scaler(const RowSource& features, const std::vector<std::int64_t>& rows,
                  ScalingKind kind);
// The scaler of `kind` from statistics already computed.
Scaler scaler_from(const ColumnStatistics& stats, ScalingKind kind);

}  // namespace topkfs
