#include "group_step.hpp"

#include <algorithm>
#include <cmath>

namespace topkfs::linear_detail {
namespace {

// Eigenvalues are raised to this fraction of the largest: the multinomial's
// curvature is singular along "every class alike", where c has no component
// (up to rounding) and the solution none either.
constexpr double min_relative_eigenvalue = 1e-12;
constexpr int max_newton_steps = 100;

}  // namespace

void GroupStep::reset(const Eigen::MatrixXd& curvature) {
  if (curvature.rows() == 1) {
    vectors_ = Eigen::MatrixXd::Ones(1, 1);
    values_ = curvature.col(0);
  } else {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(curvature);
    vectors_ = solver.eigenvectors();
    values_ = solver.eigenvalues();
  }
  const double floor = min_relative_eigenvalue * std::max(values_.maxCoeff(), 1e-300);
  values_ = values_.cwiseMax(floor);
}

Eigen::VectorXd GroupStep::solve(const Eigen::VectorXd& c, double lambda2) const {
  const double norm = c.norm();
  if (norm <= lambda2) return Eigen::VectorXd::Zero(c.size());
  if (c.size() == 1) return c * ((1.0 - lambda2 / norm) / values_[0]);
  if (lambda2 == 0.0) return vectors_ * (vectors_.transpose() * c).cwiseQuotient(values_);
  const Eigen::VectorXd projected = vectors_.transpose() * c;
  const Eigen::ArrayXd squares = projected.array().square();
  // h(t) = sum squares / (s t + lambda2)^2 falls and is convex in t, so
  // Newton from below stays below the root; (norm - lambda2) / s_max is below
  // it (every denominator is then at most norm).
  double t = (norm - lambda2) / values_.maxCoeff();
  for (int step = 0; step < max_newton_steps; ++step) {
    const Eigen::ArrayXd denominator = values_.array() * t + lambda2;
    const double h = (squares / denominator.square()).sum();
    const double slope = -2.0 * (squares * values_.array() / denominator.cube()).sum();
    const double next = t - (h - 1.0) / slope;
    if (!(next > t) || next - t <= 1e-15 * next) {
      t = std::max(t, next);
      break;
    }
    t = next;
  }
  const Eigen::ArrayXd shrink = t / (values_.array() * t + lambda2);
  return vectors_ * (projected.array() * shrink).matrix();
}

}  // namespace topkfs::linear_detail
