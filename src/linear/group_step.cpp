#include "group_step.hpp"

#include <algorithm>
#include <cmath>

namespace topkfs::linear_detail {
namespace {

// T's diagonal is raised by this fraction of its largest eigenvalue's bound:
// the multinomial's curvature is singular along "every class alike", where
// c has no component (up to rounding) and the solution none either, and
// rounding may leave it a little below 0.
constexpr double min_relative_eigenvalue = 1e-12;
constexpr int max_newton_steps = 100;

}  // namespace

void GroupStep::reset(const Eigen::MatrixXd& curvature) {
  const Eigen::Index size = curvature.rows();
  if (size == 1) {  // the binomial: a soft threshold
    diagonal_ =
        curvature.col(0).cwiseMax(min_relative_eigenvalue * std::max(curvature(0, 0), 1e-300));
    return;
  }
  reduction_.compute(curvature);
  diagonal_ = reduction_.diagonal();
  off_diagonal_ = reduction_.subDiagonal();
  // Gershgorin: every eigenvalue of T lies within a row's diagonal entry
  // plus or minus the sum of its off-diagonal magnitudes.
  bound_ = 0.0;
  for (Eigen::Index i = 0; i < size; ++i) {
    const double left = i > 0 ? std::abs(off_diagonal_[i - 1]) : 0.0;
    const double right = i + 1 < size ? std::abs(off_diagonal_[i]) : 0.0;
    bound_ = std::max(bound_, diagonal_[i] + left + right);
  }
  bound_ = std::max(bound_, 1e-300);
  diagonal_.array() += min_relative_eigenvalue * bound_;
}

void GroupStep::tridiagonal_solve(double t, double lambda2, const Eigen::VectorXd& r,
                                  Eigen::VectorXd& y, Eigen::VectorXd* second) const {
  const Eigen::Index size = diagonal_.size();
  // t T + lambda2 I = L D L', L unit lower bidiagonal (multipliers l_i).
  Eigen::VectorXd d(size), l(size);
  d[0] = t * diagonal_[0] + lambda2;
  l[0] = 0.0;
  for (Eigen::Index i = 1; i < size; ++i) {
    const double b = t * off_diagonal_[i - 1];
    l[i] = b / d[i - 1];
    d[i] = t * diagonal_[i] + lambda2 - l[i] * b;
  }
  auto solve = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& out) {
    out.resize(size);
    out[0] = rhs[0];
    for (Eigen::Index i = 1; i < size; ++i) out[i] = rhs[i] - l[i] * out[i - 1];
    out.array() /= d.array();
    for (Eigen::Index i = size - 2; i >= 0; --i) out[i] -= l[i + 1] * out[i + 1];
  };
  solve(r, y);
  if (second) solve(y, *second);
}

Eigen::VectorXd GroupStep::solve(const Eigen::VectorXd& c, double lambda2) const {
  const double norm = c.norm();
  if (norm <= lambda2) return Eigen::VectorXd::Zero(c.size());
  if (c.size() == 1) return c * ((1.0 - lambda2 / norm) / diagonal_[0]);
  const Eigen::VectorXd projected = reduction_.matrixQ().adjoint() * c;
  Eigen::VectorXd y;
  if (lambda2 == 0.0) {
    tridiagonal_solve(1.0, 0.0, projected, y, nullptr);
    return reduction_.matrixQ() * y;
  }
  // h(t) = ||(t T + lambda2 I)^{-1} c~||^2 falls and is convex in t, so
  // Newton from below stays below the root; (norm - lambda2) / bound is below
  // it (every eigenvalue of t T + lambda2 I is then at most norm).
  double t = (norm - lambda2) / bound_;
  Eigen::VectorXd w;
  for (int step = 0; step < max_newton_steps; ++step) {
    tridiagonal_solve(t, lambda2, projected, y, &w);
    const double h = y.squaredNorm();
    // h'(t) = -2 y' T (t T + lambda2 I)^{-1} y = -2 (T y)' w.
    double slope = diagonal_[0] * y[0] * w[0];
    for (Eigen::Index i = 1; i < y.size(); ++i) {
      slope +=
          diagonal_[i] * y[i] * w[i] + off_diagonal_[i - 1] * (y[i] * w[i - 1] + y[i - 1] * w[i]);
    }
    slope *= -2.0;
    const double next = t - (h - 1.0) / slope;
    if (!(next > t) || next - t <= 1e-15 * next) {
      t = std::max(t, next);
      break;
    }
    t = next;
  }
  tridiagonal_solve(t, lambda2, projected, y, nullptr);
  return reduction_.matrixQ() * (t * y);
}

}  // namespace topkfs::linear_detail
