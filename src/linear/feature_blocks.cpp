#include "feature_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "topkfs/core/error.hpp"

namespace topkfs::linear_detail {

FeatureBlocks::FeatureBlocks(const LinearProblem& problem,
                             const std::vector<std::int64_t>& groups) {
  const std::int64_t cols = problem.cols();
  TOPKFS_ASSERT(groups.empty() || static_cast<std::int64_t>(groups.size()) == cols);
  std::int64_t blocks = cols;
  if (!groups.empty()) {
    blocks = 0;
    for (auto g : groups) {
      TOPKFS_ASSERT(g >= 0);
      blocks = std::max(blocks, g + 1);
    }
  }
  columns_.resize(static_cast<std::size_t>(blocks));
  for (std::int64_t j = 0; j < cols; ++j) {
    if (problem.column_norm()[j] == 0.0) continue;
    columns_[static_cast<std::size_t>(groups.empty() ? j : groups[static_cast<std::size_t>(j)])]
        .push_back(j);
  }
  weight_.resize(blocks);
  for (std::int64_t b = 0; b < blocks; ++b) {
    weight_[b] = std::sqrt(static_cast<double>(columns(b).size()));
  }
}

Eigen::VectorXd FeatureBlocks::norms(const Eigen::MatrixXd& coef) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(count());
  for (std::int64_t b = 0; b < count(); ++b) {
    double squares = 0.0;
    for (auto j : columns(b)) squares += coef.row(j).squaredNorm();
    out[b] = std::sqrt(squares);
  }
  return out;
}

bool FeatureBlocks::is_zero(const Eigen::MatrixXd& coef, std::int64_t block) const {
  return std::all_of(columns(block).begin(), columns(block).end(),
                     [&](std::int64_t j) { return coef.row(j).isZero(); });
}

double FeatureBlocks::penalty(const Eigen::MatrixXd& coef, double lambda2) const {
  return lambda2 * weight_.dot(norms(coef));
}

Columns FeatureBlocks::columns_of(const Columns& blocks) const {
  Columns out;
  for (auto b : blocks) out.insert(out.end(), columns(b).begin(), columns(b).end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace topkfs::linear_detail
