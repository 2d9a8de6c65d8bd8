#pragma once
// The exact minimiser of one feature's row of coefficients in the quadratic
// model of the class families:
//
//   min_b  -c'b + b'(A + lambda1 I) b / 2 + lambda2 ||b||_2
//
// with A the model's curvature along the row (outputs x outputs) and
// c = A b_old + g (g the model's gradient along it). b = 0 when
// ||c|| <= lambda2; otherwise b = t (t M + lambda2 I)^{-1} c with M =
// A + lambda1 I and t = ||b||, the root of ||(t M + lambda2 I)^{-1} c|| = 1,
// found by Newton. M is reduced once to tridiagonal form, M = Q T Q', so
// that each Newton step costs two tridiagonal solves (O(outputs)) and a
// solve two products with Q (O(outputs^2)); a full eigen-decomposition
// took five times as long as the reduction (a profile of a 100-class fit),
// and dominated fits of a hundred classes.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>

namespace topkfs::linear_detail {

class GroupStep {
 public:
  // `curvature`: M = A + lambda1 I (symmetric, positive semi-definite).
  void reset(const Eigen::MatrixXd& curvature);

  // The minimiser for this c and lambda2.
  Eigen::VectorXd solve(const Eigen::VectorXd& c, double lambda2) const;

 private:
  // y = (t T + lambda2 I)^{-1} r, and when `second` is given (t T +
  // lambda2 I)^{-1} y there too, by the LDL' factors of the tridiagonal.
  void tridiagonal_solve(double t, double lambda2, const Eigen::VectorXd& r, Eigen::VectorXd& y,
                         Eigen::VectorXd* second) const;

  Eigen::Tridiagonalization<Eigen::MatrixXd> reduction_;
  Eigen::VectorXd diagonal_;      // T's, floored (see reset)
  Eigen::VectorXd off_diagonal_;  // T's sub-diagonal
  double bound_ = 0.0;            // at least T's largest eigenvalue
};

}  // namespace topkfs::linear_detail
