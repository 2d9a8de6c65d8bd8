#pragma once
// The exact minimiser of one feature's row of coefficients in the quadratic
// model of the class families:
//
//   min_b  -c'b + b'(A + lambda1 I) b / 2 + lambda2 ||b||_2
//
// with A the model's curvature along the row (outputs x outputs) and
// c = A b_old + g (g the model's gradient along it). b = 0 when
// ||c|| <= lambda2; otherwise b = (A + lambda1 I + mu I)^{-1} c with
// mu = lambda2 / ||b||, whose norm t solves the one-dimensional equation
// sum_k c~_k^2 / (s_k t + lambda2)^2 = 1 in the eigenbasis of A + lambda1 I
// (eigenvalues s_k, c~ = Q'c), solved by Newton.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>

namespace topkfs::linear_detail {

class GroupStep {
 public:
  // `curvature`: A + lambda1 I (symmetric, positive semi-definite).
  void reset(const Eigen::MatrixXd& curvature);

  // The minimiser for this c and lambda2.
  Eigen::VectorXd solve(const Eigen::VectorXd& c, double lambda2) const;

 private:
  Eigen::MatrixXd vectors_;
  Eigen::VectorXd values_;
};

}  // namespace topkfs::linear_detail
