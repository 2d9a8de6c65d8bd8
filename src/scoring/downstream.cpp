#include "topkfs/scoring/downstream.hpp"

#include <fmt/format.h>

#include <Eigen/QR>

#include "topkfs/core/error.hpp"
#include "topkfs/core/option_ref.hpp"
#include "topkfs/data/sample_weights.hpp"
#include "topkfs/scoring/metrics.hpp"
#include "topkfs/trees/forest.hpp"

namespace topkfs {
namespace {

using DoubleMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

void require_rows_and_columns(const std::vector<std::int64_t>& train,
                              const std::vector<std::int64_t>& test,
                              const std::vector<std::int64_t>& columns) {
  if (train.empty()) throw OptionError("downstream model: no training rows");
  if (test.empty()) throw OptionError("downstream model: no test rows");
  if (columns.empty()) throw OptionError("downstream model: no columns selected");
}

// The selected columns of `rows`, with a last column of ones for the intercept.
DoubleMatrix design_matrix(const Dataset& data, const std::vector<std::int64_t>& rows,
                           const std::vector<std::int64_t>& columns) {
  const auto k = static_cast<Eigen::Index>(columns.size());
  DoubleMatrix x(static_cast<Eigen::Index>(rows.size()), k + 1);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto row = rows[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < k; ++j)
      x(i, j) = data.features(row, columns[static_cast<std::size_t>(j)]);
    x(i, k) = 1.0;
  }
  return x;
}

TargetMatrix targets_of(const Dataset& data, const std::vector<std::int64_t>& rows) {
  TargetMatrix y(static_cast<Eigen::Index>(rows.size()), data.targets.cols());
  for (std::size_t i = 0; i < rows.size(); ++i)
    y.row(static_cast<Eigen::Index>(i)) = data.targets.row(rows[i]);
  return y;
}

}  // namespace

TargetMatrix fit_least_squares(const Dataset& data, const std::vector<std::int64_t>& rows,
                               const std::vector<std::int64_t>& columns) {
  if (data.target_kind != TargetKind::Real) {
    throw DataError(fmt::format("{}: least squares needs a real target", data.source));
  }
  DoubleMatrix x = design_matrix(data, rows, columns);
  DoubleMatrix y = targets_of(data, rows);
  // Weighted least squares: each row times the root of its weight.
  const std::vector<double> weights = row_weights(data, rows);
  if (!weights.empty()) {
    const Eigen::ArrayXd root = Eigen::Map<const Eigen::ArrayXd>(weights.data(), x.rows()).sqrt();
    x.array().colwise() *= root;
    y.array().colwise() *= root;
  }
  return x.colPivHouseholderQr().solve(y);
}

TargetMatrix predict_least_squares(const TargetMatrix& coefficients, const Dataset& data,
                                   const std::vector<std::int64_t>& rows,
                                   const std::vector<std::int64_t>& columns) {
  return design_matrix(data, rows, columns) * coefficients;
}

DownstreamScore score_downstream(const Dataset& data, const std::vector<std::int64_t>& train,
                                 const std::vector<std::int64_t>& test,
                                 const std::vector<std::int64_t>& columns,
                                 const DownstreamOptions& options) {
  require_rows_and_columns(train, test, columns);
  DownstreamScore score;
  score.kind = data.target_kind;
  if (data.target_kind == TargetKind::Classes) {
    ForestOptions forest_options = ForestOptions::extra_trees(options.trees);
    forest_options.seed = options.seed;
    forest_options.threads = options.threads;
    Forest forest(forest_options);
    forest.fit(data, train, columns);
    std::vector<std::int32_t> truth;
    truth.reserve(test.size());
    for (const auto row : test) truth.push_back(data.labels[static_cast<std::size_t>(row)]);
    score.accuracy = 100.0 * accuracy(truth, forest.predict_classes(data.features, test),
                                      score_weights(data, test));
  } else if (data.target_kind == TargetKind::Real) {
    const TargetMatrix predicted =
        predict_least_squares(fit_least_squares(data, train, columns), data, test, columns);
    const TargetMatrix truth = targets_of(data, test);
    const std::vector<double> weights = score_weights(data, test);
    score.mae = mean_absolute_error(truth, predicted, weights);
    score.rmse = root_mean_squared_error(truth, predicted, weights);
  } else {
    throw DataError(fmt::format("{}: a downstream model needs a target", data.source));
  }
  return score;
}

DownstreamResult score_held_out(const Dataset& data, const std::vector<std::int64_t>& train,
                                const std::vector<std::int64_t>& columns,
                                const DownstreamOptions& options) {
  std::vector<bool> in_train(static_cast<std::size_t>(data.rows()), false);
  for (const auto row : train) in_train[static_cast<std::size_t>(row)] = true;
  std::vector<std::int64_t> test;
  for (std::int64_t row = 0; row < data.rows(); ++row) {
    if (!in_train[static_cast<std::size_t>(row)]) test.push_back(row);
  }
  if (test.empty()) {
    throw OptionError(
        fmt::format("{} needs rows the method did not learn from, but it learned from all {} rows "
                    "of {}: add {} ({} by default)",
                    option_ref("score"), data.rows(), data.source, option_ref("split", "random"),
                    option_ref("test-size", "0.2")));
  }
  const DownstreamScore score = score_downstream(data, train, test, columns, options);
  DownstreamResult result;
  result.train_rows = static_cast<std::int64_t>(train.size());
  result.test_rows = static_cast<std::int64_t>(test.size());
  if (score.kind == TargetKind::Classes) {
    result.model = fmt::format("ExtraTrees, {} trees", options.trees);
    result.metric = "accuracy %";
    result.value = score.accuracy;
  } else {
    result.model = "least squares";
    result.metric = "MAE";
    result.value = score.mae;
    result.rmse = score.rmse;
  }
  return result;
}

}  // namespace topkfs

namespace topkfs {

DownstreamResult score_held_out(const Dataset& data, const std::vector<std::int64_t>& train,
                                const SelectionResult& selection,
                                const DownstreamOptions& options) {
  if (!selection.encoding)
    return score_held_out(data, train, selection.selected_columns(), options);
  const Dataset encoded = encode_table(data, *selection.encoding);
  return score_held_out(encoded, train,
                        selection.encoding->encoded_columns_of(selection.selected_columns()),
                        options);
}

}  // namespace topkfs
