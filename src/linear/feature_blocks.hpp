#pragma once
// The blocks of coefficients the class solver (glm_descent.cpp) updates and
// penalises together: one feature's row of class coefficients, or, when the
// columns come in groups (a categorical column's one-hot columns, a numeric
// column and its missing indicator, a group of --groups), every row of a
// group at once. The penalty of a block is lambda2 sqrt(p) ||B_block||_F, p
// its non-constant columns: the group lasso of Yuan and Lin (2006), whose
// sqrt(p) keeps a wide group from entering only because it is wide.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "top_set.hpp"
#include "topkfs/linear/linear_model.hpp"

namespace topkfs::linear_detail {

class FeatureBlocks {
 public:
  // `groups`: one group number per column of `problem` (0, 1, ...), or empty
  // for a block per column. Constant columns belong to no block (their
  // weights stay 0), so a block can be empty.
  FeatureBlocks(const LinearProblem& problem, const std::vector<std::int64_t>& groups);

  std::int64_t count() const { return static_cast<std::int64_t>(columns_.size()); }
  const Columns& columns(std::int64_t block) const {
    return columns_[static_cast<std::size_t>(block)];
  }
  bool empty(std::int64_t block) const { return columns(block).empty(); }
  // sqrt of the block's columns: the factor of lambda2 in its penalty.
  double weight(std::int64_t block) const { return weight_[block]; }

  // ||B_block||_F per block, for coefficients with a row per column.
  Eigen::VectorXd norms(const Eigen::MatrixXd& coef) const;
  bool is_zero(const Eigen::MatrixXd& coef, std::int64_t block) const;
  // lambda2 sum_b sqrt(p_b) ||B_b||_F.
  double penalty(const Eigen::MatrixXd& coef, double lambda2) const;
  // The columns of `blocks`, ascending.
  Columns columns_of(const Columns& blocks) const;

 private:
  std::vector<Columns> columns_;
  Eigen::VectorXd weight_;
};

}  // namespace topkfs::linear_detail
