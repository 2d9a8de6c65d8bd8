#pragma once
// The downstream models of the paper's protocols (docs/method.md §3): a
// selection is judged by what a model trained on the selected columns of the
// training rows does on the test rows.
//  - classes: ExtraTrees with 50 trees, accuracy in percent (Table 4);
//  - real targets: ordinary least squares with an intercept, MAE and RMSE
//    (Table 3).
#include <cstdint>
#include <vector>

#include "topkfs/data/dataset.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs {

struct DownstreamOptions {
  int trees = 50;          // ExtraTrees size for class targets
  std::uint64_t seed = 0;  // of the trees
  int threads = 0;         // 0 = every core; the score does not depend on it
};

struct DownstreamScore {
  TargetKind kind = TargetKind::None;
  double accuracy = 0.0;  // classes: percent of test rows labelled right
  double mae = 0.0;       // real targets
  double rmse = 0.0;      // real targets
};

// Fits the downstream model on rows `train` and columns `columns` of `data`
// and scores it on rows `test`. Throws OptionError for empty rows or columns,
// DataError for data without a target.
DownstreamScore score_downstream(const Dataset& data, const std::vector<std::int64_t>& train,
                                 const std::vector<std::int64_t>& test,
                                 const std::vector<std::int64_t>& columns,
                                 const DownstreamOptions& options = {});

// `select --score`: the downstream model fitted on rows `train` (those the
// method learned from) and scored on every other row. Throws OptionError when
// `train` holds every row (nothing is left to test on).
DownstreamResult score_held_out(const Dataset& data, const std::vector<std::int64_t>& train,
                                const std::vector<std::int64_t>& columns,
                                const DownstreamOptions& options = {});

// score_held_out of the columns `selection` chose (those of its groups, when
// it selected groups: SelectionResult::selected_columns); where the selection
// encoded the table (SelectionResult::encoding), on the encoded columns of
// the chosen ones, encoded as the selection learned them.
DownstreamResult score_held_out(const Dataset& data, const std::vector<std::int64_t>& train,
                                const SelectionResult& selection,
                                const DownstreamOptions& options = {});

// Least-squares coefficients with an intercept: (k + 1) x q, the intercept in
// the last row. Solved by column-pivoting QR in double precision, so collinear
// or constant columns get a minimum-effort (not NaN) solution.
TargetMatrix fit_least_squares(const Dataset& data, const std::vector<std::int64_t>& rows,
                               const std::vector<std::int64_t>& columns);
TargetMatrix predict_least_squares(const TargetMatrix& coefficients, const Dataset& data,
                                   const std::vector<std::int64_t>& rows,
                                   const std::vector<std::int64_t>& columns);

}  // namespace topkfs
