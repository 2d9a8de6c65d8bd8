#pragma once
// The log-likelihood of the class families at linear predictors eta (one row
// per training row, one column per output) and its quadratic approximation,
// the inner problem of each proximal Newton step.
#include <Eigen/Core>

#include "topkfs/linear/glm_model.hpp"

namespace topkfs::linear_detail {

// The quadratic approximation (second-order Taylor expansion) of L at eta,
//   L(eta + d) ~ loss - sum_ik residual_ik d_ik / n + d' Hessian d / (2n),
// kept as the model's negative gradient: `residual` starts at Y - P (Y the
// 0/1 indicator of the labels, P the fitted probabilities) and follows the
// steps (shift). Binomial: Hessian diag(p (1 - p)), `weight` = p (1 - p).
// Multinomial: per row diag(p) - p p' (the cross-class terms included, so
// that the outer loop converges as Newton does), `weight` = P.
// Gaussian (the grouped least-squares fits): residual y - eta, `weight` 1.
// With row weights w (ClassTarget::weights) every row's residual and
// Hessian are multiplied by w_i: `row_weight` keeps w for the multinomial,
// whose `weight` stays P (the binomial's `weight` holds w p (1 - p)).
struct Expansion {
  Eigen::MatrixXd residual;
  Eigen::MatrixXd weight;
  Eigen::VectorXd row_weight;  // empty: every row weighs 1
  double loss = 0.0;           // L(eta): negative log-likelihood / n
};

void expand(const Eigen::MatrixXd& eta, const ClassTarget& target, LinearFamily family,
            Expansion& out);

// The model's residual after the step d = column delta' of eta (column: one
// entry per row, delta: one per output).
void shift(Expansion& e, LinearFamily family, const Eigen::Ref<const Eigen::VectorXd>& column,
           const Eigen::VectorXd& delta);

// The model's curvature along a feature's row of coefficients (outputs x
// outputs): sum_i x_ij^2 H_i / n, H_i the row's Hessian.
Eigen::MatrixXd row_curvature(const Expansion& e, LinearFamily family,
                              const Eigen::Ref<const Eigen::VectorXd>& column);

// The model's curvature along a block of rows of coefficients, those of the
// p columns of `columns`: (p outputs) x (p outputs), entry (a o + c, b o + d)
// = sum_i x_ia x_ib H_i(c, d) / n (a row's block is row_curvature).
Eigen::MatrixXd block_curvature(const Expansion& e, LinearFamily family,
                                const Eigen::Ref<const Eigen::MatrixXd>& columns);

// The model's curvature along the intercepts (outputs x outputs, as
// row_curvature for a column of ones), positive definite.
Eigen::MatrixXd intercept_curvature(const Expansion& e, LinearFamily family);

// The intercepts of the intercepts-only fit (log-odds of the class
// frequencies; multinomial: centred to sum 0). Throws DataError when a class
// has no training row.
Eigen::VectorXd null_intercepts(const ClassTarget& target, LinearFamily family);

}  // namespace topkfs::linear_detail
